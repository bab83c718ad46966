/**
 * The bot as a real process, killed with SIGKILL (no chance to clean up) and started
 * again: pending payouts are picked up and settled once; a payout whose request was in
 * flight is never sent a second time.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { keys } from "../../../src/store/keys.js";
import { isNewReplyIn, messagesWith, payAndConfirm, sendAndWait } from "../../support/flows.js";
import { ADMIN_ID, PAYER_ID } from "../../support/harness.js";
import { freePort } from "../../support/net.js";
import { startBot, waitUntil } from "../../support/processes.js";
import { testRedis } from "../../support/redis.js";
import { lapsePollerLease, worldPerTest } from "../../support/world.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;

describe("a bot process killed and started again", () => {
  const world = worldPerTest();

  /**
   * A kill while a poll holds its claim on the payout would hide it from the next process
   * for the claim's lease (60 s): kill between two polls, as almost every kill lands.
   */
  async function killBetweenPolls(payoutId: string, kill: () => Promise<unknown>) {
    const redis = testRedis();
    try {
      await waitUntil(async () => {
        const score = await redis.zscore(keys(world.prefix).tracking(), payoutId);
        const dueInMs = score === null ? -1 : Number(score) - Date.now();
        return dueInMs > 100 && dueInMs < 30_000;
      }, "the payout to be scheduled and not claimed");
      await kill();
    } finally {
      await redis.quit();
    }
  }

  it("notifies the payer once of a payout that completed while it was down, and never pays twice", async () => {
    const first = await startBot(world.env);
    const payer = world.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await payAndConfirm(world.emulator, payer, "/pay 237670000003 5000 courier");
    const [pending] = await world.stores.payouts.listInState("pending");
    const paymentId = pending?.paymentId;
    if (!pending || !paymentId) throw new Error("no pending payout after Confirm");

    await killBetweenPolls(pending.id, () => first.process.kill("SIGKILL"));
    expect(first.process.exitInfo?.signal).toBe("SIGKILL");
    world.sandbox.forceStatus(paymentId, "success");

    const notice = world.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("Paid"),
      15_000,
    );
    const second = await startBot(world.env);
    expect(plainText(await notice)).toContain(paymentId);
    await waitUntil(
      () =>
        plainText(world.emulator.message(PAYER_ID, prompt.messageId) ?? prompt).includes(
          "Completed",
        ),
      "the prompt to show the final state",
    );
    // Let the new process run a while: no second notice, no second request.
    await sleep(1000);
    expect(second.process.exitInfo).toBeUndefined();
    expect(messagesWith(world.emulator, PAYER_ID, "Paid")).toHaveLength(1);
    expect(world.sandbox.countRequests(DISBURSE)).toBe(1);
    expect((await world.stores.payouts.get(pending.id))?.state).toBe("success");
  });

  it("never sends a second POST /disburse for a payout whose request was in flight when it died", async () => {
    world.sandbox.injectFault({ ...DISBURSE, delayMs: 1500 });
    const first = await startBot(world.env);
    const payer = world.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    world.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    await payAndConfirm(world.emulator, payer, "/pay 237670000001 7000", "Sending");
    await waitUntil(() => world.sandbox.countRequests(DISBURSE) === 1, "the POST /disburse");
    await first.process.kill("SIGKILL");
    await lapsePollerLease(world);

    const second = await startBot(world.env);
    // The sandbox made the payment after the delay; nobody heard the answer.
    await waitUntil(() => world.sandbox.snapshot().payments.length === 1, "the payment to exist");
    const [stranded] = await world.stores.payouts.listInState("submitting");
    expect(stranded?.amount).toBe(7000);
    // Generous waits: a process starting beside a loaded test run may take seconds.
    const history = world.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("Your payouts"),
      20_000,
    );
    await payer.sendText("/history");
    expect(plainText(await history)).toContain("Sending");
    await second.process.kill("SIGTERM");

    // Down past the stranded limit (5 min): the next process marks it unknown, tells the
    // payer and the admins, and still sends nothing.
    if (!stranded) throw new Error("no payout left in submitting");
    const longAgoMs = Date.now() - 6 * 60_000;
    await world.stores.payouts.update(stranded.id, {
      submittedAtMs: longAgoMs,
      sentAtMs: longAgoMs,
    });
    const told = world.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("Outcome unknown"),
      20_000,
    );
    const toldAdmin = world.emulator.waitForMessage(
      (m) => m.chatId === ADMIN_ID && plainText(m).includes("Outcome unknown"),
      20_000,
    );
    await startBot(world.env);
    await Promise.all([told, toldAdmin]);
    expect((await world.stores.payouts.get(stranded.id))?.state).toBe("unknown");
    expect(world.sandbox.countRequests(DISBURSE)).toBe(1);
  }, 60_000);

  it("answers at once when restarted after a crash: it takes back its own polling lease", async () => {
    // The same host and HTTP port, as a process restarted in place by its supervisor.
    const env = { ...world.env, HTTP_PORT: String(await freePort()) };
    const first = await startBot(env);
    const payer = world.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await sendAndWait(world.emulator, payer, "/help");
    await first.process.kill("SIGKILL");

    // The dead process's lease is still there (30 s); nothing lapses it here.
    await startBot(env);
    const answer = world.emulator.waitForMessage(isNewReplyIn(PAYER_ID), 10_000);
    await payer.sendText("/help");
    expect(plainText(await answer)).toContain("/pay");
  });
});
