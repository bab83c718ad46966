/**
 * A Redis Sentinel failover under a running bot process. Real servers on loopback
 * (test/support/sentinel.ts): a primary, two replicas whose link to it holds every byte
 * 100 ms (replication lag, as between two machines), and three sentinels. Thirty payers,
 * each with a prompt of their own (a person has one open prompt at a time), confirm in five
 * rows of six, one after another in each row; payment answers take 300 ms. Once ten
 * requests have reached the API, the primary's machine dies (SIGKILL, its link with it),
 * with claims, requests and answers in flight. The sentinels promote the replica; the bot, configured with
 * REDIS_SENTINELS, follows without a restart.
 *
 * What must hold: no payout is sent twice; every payment the API made is recorded on its
 * payout, or that payout is `unknown` (payer and admins see it); every payout ends final,
 * unknown, or never sent with nothing paid; and a new /pay goes through.
 *
 * The durability wait (REDIS_DURABILITY=auto, the default in production) is what makes
 * this hold: a request leaves only once its claim is on the replica. Run it without:
 * `FAILOVER_DURABILITY=off npx vitest run test/e2e/redis/failover.test.ts` fails, with payments
 * the promoted replica knows nothing of (their payouts back at "awaiting confirmation").
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type EmulatedUser,
  plainText,
  type SentMessage,
} from "../../../src/dev/telegram-emulator/index.js";
import type { Payout } from "../../../src/model/payout.js";
import {
  isNewReplyWith,
  isPromptIn,
  messagesWith,
  sendAndWait,
  showPrompt,
} from "../../support/flows.js";
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
interface Started {
  payer: EmulatedUser;
  /** The row of payers it is confirmed in. */
  row: number;
  prompt: SentMessage;
  amount: number;
}

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
    // And a new payout goes through from start to end.
    // Its deadline covers the presses below (up to 20, a second apart, while the bot has not
    // yet seen the new replica keep its writes): with 15 s it ran out during them in some
    // runs. Marked handled so that a try failing before it is awaited leaves no unhandled
    // rejection behind (the await below still fails the try).
    const paidAfter = world.emulator.waitForMessage(
      (m) => m.chatId === PAYERS[0] && plainText(m).includes("Paid: 2,000 FCFA"),
      90_000,
    );
    paidAfter.catch(() => {});
    const [firstPayer] = payers;
    if (!firstPayer) throw new Error("no payer");
    const shown = world.emulator.waitForMessage(isPromptIn(firstPayer.id), 15_000);
    await firstPayer.sendText("/pay 237670000001 2000");
    const prompt = await shown;
    // As a payer would: told "cannot take payouts right now" while the bot has not yet seen
    // the new replica keep its writes, they press Confirm again a moment later.
    let taken = false;
    for (let press = 0; press < 20 && !taken; press++) {
      const pressed = await firstPayer.pressButton(prompt, 0);
      const answer = await world.emulator.waitForCallbackAnswer(pressed.callbackQueryId, 30_000);
      taken = answer.text === SENDING;
      if (!taken) await sleep(1_000);
    }
    expect(taken).toBe(true);
    await paidAfter;

    // Every payout ends: final, unknown (stranded ones after 8 s), or never sent.
    let payouts = new Map<Started, Payout>();
    await waitUntil(
      async () => {
        payouts = await payoutsOf(started);
        return [...payouts.values()].every(
          (p) => p.state !== "submitting" && p.state !== "pending",
        );
      },
      "every payout to end",
      // A payment id recorded while the new primary had no replica yet is written again
      // for up to a minute before it counts as kept: a loaded machine can need that long.
      75_000,
    );
    expect(payouts.size).toBe(started.length);
    await waitUntil(
      () =>
        [...payouts].every(
          ([item, payout]) =>
            payout.state !== "success" ||
            messagesWith(world.emulator, item.payer.id, `Payment id: ${payout.paymentId}`).some(
              (m) => plainText(m).includes("Paid"),
            ),
        ),
      "every payer of a paid payout to be told",
    );

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

/**
 * What the API was asked against what the bot recorded: every amount sent once at most,
 * every payment on its payout (or its payout unknown), every payout sent ending paid or
 * unknown. A payout whose request never left may end anywhere a payout with nothing paid
 * can: refused, or back at "awaiting confirmation" when the failover lost its claim.
 */
function moneyProblems(world: World, payouts: Map<Started, Payout>): string[] {
  const problems: string[] = [];
  const sent = world.sandbox.requests
    .filter((r) => r.method === DISBURSE.method && r.path === DISBURSE.path)
    .map((r) => amountOf(r.body));
  for (const amount of new Set(sent)) {
    const times = sent.filter((a) => a === amount).length;
    if (times > 1) problems.push(`${amount} FCFA was sent ${times} times`);
  }
  const payments = world.sandbox.snapshot().payments;
  for (const [item, payout] of payouts) {
    const mine = payments.filter((payment) => payment.amount === item.amount);
    const recorded = mine.some((payment) => payment.id === payout.paymentId);
    if (mine.length === 0 && payout.paymentId !== undefined)
      problems.push(`${item.amount} FCFA: ${payout.state} with a payment the API never made`);
    else if (mine.length > 0 && payout.state === "success" && !recorded)
      problems.push(`${item.amount} FCFA: paid, but under another payment id`);
    else if (mine.length > 0 && payout.state !== "success" && payout.state !== "unknown")
      problems.push(
        `${item.amount} FCFA: paid, but its payout is ${payout.state} (recorded nowhere)`,
      );
  }
  return problems;
}

function amountOf(body: unknown): number {
  if (typeof body === "object" && body !== null && "amount" in body) return Number(body.amount);
  return Number.NaN;
}
