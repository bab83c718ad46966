/**
 * What the Redis failover tests (Sentinel and Cluster) check once the failover is over: a new
 * payout goes through from start to end, every payout caught in it ends, each payer of a paid
 * one is told, and the money the API was asked for matches what the bot recorded.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import {
  type EmulatedUser,
  plainText,
  type SentMessage,
} from "../../src/dev/telegram-emulator/index.js";
import type { Payout } from "../../src/model/payout.js";
import { isPromptIn, messagesWith } from "./flows.js";
import { waitUntil } from "./processes.js";
import type { World } from "./world.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;
/** The Confirm press's answer when it was taken. */
const SENDING = "Sending…";

/** A payout a failover test confirmed: whose, in which row of presses, its prompt, its amount. */
export interface StartedPayout {
  payer: EmulatedUser;
  /** The row of payers it is confirmed in. */
  row: number;
  prompt: SentMessage;
  amount: number;
}

/**
 * After the failover: a new /pay of 2,000 by `payer` is confirmed (pressed again, a second
 * apart, while the bot cannot yet take payouts) and paid; then every payout of `started`
 * ends (not `submitting` nor `pending`), and every payer of a paid one is told. Answers the
 * payouts as they ended.
 */
export async function afterFailover(
  world: World,
  payer: EmulatedUser,
  started: readonly StartedPayout[],
  payoutsOf: (started: readonly StartedPayout[]) => Promise<Map<StartedPayout, Payout>>,
  waits: { paidMs: number; toldMs?: number },
): Promise<Map<StartedPayout, Payout>> {
  // Its deadline covers the presses below. Marked handled so that a try failing before it is
  // awaited leaves no unhandled rejection behind (the await below still fails the try).
  const paidAfter = world.emulator.waitForMessage(
    (m) => m.chatId === payer.id && plainText(m).includes("Paid: 2,000 FCFA"),
    waits.paidMs,
  );
  paidAfter.catch(() => {});
  const shown = world.emulator.waitForMessage(isPromptIn(payer.id), 15_000);
  await payer.sendText("/pay 237670000001 2000");
  const prompt = await shown;
  // As a payer would: told "cannot take payouts right now" while the bot has not yet seen
  // the new replica keep its writes, they press Confirm again a moment later.
  let taken = false;
  for (let press = 0; press < 20 && !taken; press++) {
    const pressed = await payer.pressButton(prompt, 0);
    const answer = await world.emulator.waitForCallbackAnswer(pressed.callbackQueryId, 30_000);
    taken = answer.text === SENDING;
    if (!taken) await sleep(1_000);
  }
  expect(taken).toBe(true);
  await paidAfter;

  // Every payout ends: final, unknown (stranded ones), or never sent.
  let payouts = new Map<StartedPayout, Payout>();
  await waitUntil(
    async () => {
      payouts = await payoutsOf(started);
      return [...payouts.values()].every((p) => p.state !== "submitting" && p.state !== "pending");
    },
    "every payout to end",
    // A payment id recorded while the new primary had no replica yet is written again for up
    // to a minute before it counts as kept: a loaded machine can need that long.
    75_000,
  );
  expect(payouts.size).toBe(started.length);
  await waitUntil(
    () =>
      [...payouts].every(
        ([item, payout]) =>
          payout.state !== "success" ||
          messagesWith(world.emulator, item.payer.id, `Payment id: ${payout.paymentId}`).some((m) =>
            plainText(m).includes("Paid"),
          ),
      ),
    "every payer of a paid payout to be told",
    ...(waits.toldMs === undefined ? [] : [waits.toldMs]),
  );
  return payouts;
}

/**
 * What the API was asked against what the bot recorded: every amount sent once at most,
 * every payment on its payout (or its payout unknown), every payout sent ending paid or
 * unknown. A payout whose request never left may end anywhere a payout with nothing paid
 * can: refused, or back at "awaiting confirmation" when the failover lost its claim.
 */
export function moneyProblems(world: World, payouts: Map<StartedPayout, Payout>): string[] {
  const problems: string[] = [];
  const sent = disbursedAmounts(world);
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

/** The amount of every POST /disburse the sandbox received, in order. */
export function disbursedAmounts(world: World): number[] {
  return world.sandbox.requests
    .filter((r) => r.method === DISBURSE.method && r.path === DISBURSE.path)
    .map((r) => amountOf(r.body));
}

function amountOf(body: unknown): number {
  if (typeof body === "object" && body !== null && "amount" in body) return Number(body.amount);
  return Number.NaN;
}
