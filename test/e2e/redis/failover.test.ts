import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type EmulatedUser, plainText } from "../../../src/dev/telegram-emulator/index.js";
import type { Payout } from "../../../src/model/payout.js";
import { afterFailover, moneyProblems, type StartedPayout } from "../../support/failover-checks.js";
import { isNewReplyWith, sendAndWait, showPrompt } from "../../support/flows.js";
import { ADMIN_ID } from "../../support/harness.js";
import { healthStatus, startBot, waitUntil } from "../../support/processes.js";
import { SentinelCluster } from "../../support/sentinel.js";
import { startWorld, type World } from "../../support/world.js";

const DURABILITY = process.env.FAILOVER_DURABILITY === "off" ? "off" : "auto";
const DISBURSE = { method: "POST", path: "/disburse" } as const;
/** Rows of payers confirming one after another, the rows at once. */
const ROWS = 5;
const PAYERS_PER_ROW = 6;
const PAYERS = Array.from({ length: ROWS * PAYERS_PER_ROW }, (_, index) => 2001 + index);
const LINK_DELAY_MS = 100;
const ANSWER_DELAY_MS = 300;
const CRASH_AFTER_REQUESTS = 10;
const STAFF = [`${ADMIN_ID}:admin`, ...PAYERS.map((id) => `${id}:payer`)].join(",");
const SENDING = "Sending…";

/** One payout a payer started: its prompt, and its amount (unique, so a payment names it). */
type Started = StartedPayout;

describe("a Redis Sentinel failover under a running bot", () => {
  let cluster: SentinelCluster;
  let world: World;

  beforeEach(async () => {
    cluster = await SentinelCluster.start({ linkDelayMs: LINK_DELAY_MS });
    world = await startWorld({
      redisTarget: cluster.target(),
      sandbox: { settleDelayMs: 300 },
      env: {
        ...cluster.env(),
        STAFF,
        // 300 requests a minute: 31 payouts, their look-ups and polls fit.
        PAYMENT_ENV: "production",
        REDIS_DURABILITY: DURABILITY,
        PAYMENT_TIMEOUT_MS: "1000",
        // Stranded after 8 s (8 request timeouts), so the test need not wait 5 minutes.
        PAYOUT_STRANDED_AFTER_SECONDS: "5",
      },
    });
  });

  afterEach(async () => {
    await world.close();
    await cluster.close();
  });

  /** Every row's payers show their prompt, one after the other; all rows at once. */
  async function showPrompts(payers: EmulatedUser[]): Promise<Started[]> {
    const rows = await Promise.all(
      Array.from({ length: ROWS }, async (_, row) => {
        const mine: Started[] = [];
        for (let i = 0; i < PAYERS_PER_ROW; i++) {
          const payer = payers[row * PAYERS_PER_ROW + i];
          if (!payer) throw new Error("no such payer");
          const amount = 1000 + row * PAYERS_PER_ROW + i + 1;
          const prompt = await showPrompt(world.emulator, payer, `/pay 237670000001 ${amount}`);
          mine.push({ payer, row, prompt, amount });
        }
        return mine;
      }),
    );
    return rows.flat();
  }

  /** The prompt's text as the payer sees it now. */
  function promptText(item: Started): string {
    const current = world.emulator.message(item.prompt.chatId, item.prompt.messageId);
    return current ? plainText(current) : "";
  }

  function hasButtons(item: Started): boolean {
    const current = world.emulator.message(item.prompt.chatId, item.prompt.messageId);
    return (current?.replyMarkup?.length ?? 0) > 0;
  }

  /**
   * Presses Confirm and waits for the answer to the press; when the payout is being sent,
   * also for its outcome on the prompt (as a payer watching it would), unless `hurry()`.
   */
  async function confirm(item: Started, hurry: () => boolean): Promise<void> {
    const pressed = await item.payer.pressButton(item.prompt, 0);
    const answer = await world.emulator.waitForCallbackAnswer(pressed.callbackQueryId, 30_000);
    if (answer.text !== SENDING) return;
    const asked = plainText(item.prompt);
    await waitUntil(
      () =>
        hurry() || (![asked, ""].includes(promptText(item)) && !promptText(item).includes(SENDING)),
      "the outcome of a Confirm",
      30_000,
    );
  }

  /** The payout each started item stored, from the store (the promoted replica by now). */
  async function payoutsOf(started: readonly Started[]): Promise<Map<Started, Payout>> {
    const found = new Map<Started, Payout>();
    for (const id of PAYERS) {
      const { items } = await world.stores.payouts.list({ userId: id, offset: 0, limit: 20 });
      for (const item of started.filter((s) => s.payer.id === id)) {
        const payout = items.find((candidate) => candidate.messageId === item.prompt.messageId);
        if (payout) found.set(item, payout);
      }
    }
    return found;
  }

  // Retried, each try on a fresh cluster: on the shared 2-core machine a try sometimes runs
  // out of time in one of its waits (today: 2 of 7 full-suite runs, 3 of 16 runs alone). Every
  // assertion of a try holds as written. One such wait is found: the new payout's "Paid" had
  // 15 s from before the presses that wait out the failover (now 90 s); keep the retry until
  // full runs show no other.
  it("sends no payout twice, loses none, and takes new payouts without a restart", {
    timeout: 150_000,
    retry: 2,
  }, async () => {
    const bot = await startBot(world.env);
    // The admin has a chat with the bot: alerts about unknown payouts go there.
    const admin = world.emulator.user({ id: ADMIN_ID, firstName: "Ada", languageCode: "en" });
    const payers = PAYERS.map((id) =>
      world.emulator.user({ id, firstName: `Payer ${id}`, languageCode: "en" }),
    );
    const started = await showPrompts(payers);
    world.sandbox.injectFault({
      ...DISBURSE,
      delayMs: ANSWER_DELAY_MS,
      afterHandling: true,
      times: Number.POSITIVE_INFINITY,
    });
    // The replica really lags behind through the slow link (no sentinel rewired it).
    expect(await cluster.replicaMasterPort()).toBe(cluster.link.port);

    let crashed = false;
    const confirming = Promise.all(
      Array.from({ length: ROWS }, async (_, row) => {
        for (const item of started.filter((s) => s.row === row)) await confirm(item, () => crashed);
      }),
    );
    await waitUntil(
      () => world.sandbox.countRequests(DISBURSE) >= CRASH_AFTER_REQUESTS,
      "the first payment requests",
      20_000,
    );
    await cluster.crashPrimary();
    crashed = true;
    const sentBeforeCrash = world.sandbox.countRequests(DISBURSE);
    await confirming;
    await cluster.waitForFailover();
    await waitUntil(async () => (await healthStatus(bot.url)) === 200, "healthz to answer 200");
    // The test reads the store through a connection of its own: it follows the failover too.
    await waitUntil(() => world.stores.ping(), "the test's own connection to the new primary");
    // Until the new primary has a replica of its own, claims are refused (the durability
    // plan lost the replica it waited for): the spare is that replica.
    await cluster.waitForNewReplica();

    // Payers told "cannot take payouts right now" confirm again, still in the same process.
    const waiting = await payoutsOf(started);
    for (const item of started) {
      const payout = waiting.get(item);
      if (payout?.state === "awaiting_confirmation" && hasButtons(item))
        await confirm(item, () => false);
    }
    // And a new payout goes through from start to end; every payout ends, each paid one told.
    const [firstPayer] = payers;
    if (!firstPayer) throw new Error("no payer");
    const payouts = await afterFailover(world, firstPayer, started, payoutsOf, {
      paidMs: 90_000,
    });

    const problems = moneyProblems(world, payouts);
    const unknown = [...payouts].filter(([, payout]) => payout.state === "unknown");
    for (const [item, payout] of unknown) {
      if (!promptText(item).includes("Outcome unknown"))
        problems.push(`the prompt of unknown payout ${payout.id} reads "${promptText(item)}"`);
    }
    expect(problems).toEqual([]);
    // The admins find every unknown payout where they settle them.
    // The alerts about unknown payouts come to this chat too, maybe still on their way:
    // wait for the list itself.
    const listed = await sendAndWait(
      world.emulator,
      admin,
      "/unknown",
      isNewReplyWith(ADMIN_ID, "an unknown outcome"),
    );
    const expected =
      unknown.length === 0 ? "No payout has an unknown outcome" : `${unknown.length} payout`;
    expect(plainText(listed)).toContain(expected);

    // It was a crash in the middle of the run, and the same process took the rest.
    expect(sentBeforeCrash).toBeGreaterThanOrEqual(CRASH_AFTER_REQUESTS);
    expect(sentBeforeCrash).toBeLessThan(started.length);
    expect(bot.process.exitInfo).toBeUndefined();
  });
});
