/**
 * What the payout rules' test files share (approval, limits, duplicates): one sandbox over
 * HTTP, memory stores made afresh for each test by `start`, and the people and helpers they
 * use. The `let`s are live bindings: each test reads the current test's stores.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { Payout } from "../../../src/model/payout.js";
import { PaymentClient } from "../../../src/payments/client.js";
import { NO_RULES, type Payouts } from "../../../src/payouts/payouts.js";
import type { PayoutRules } from "../../../src/payouts/types.js";
import { type SandboxHandle, startSandbox } from "../../../src/sandbox/index.js";
import type { Stores } from "../../../src/store/types.js";
import { type FakeClock, fakeClock } from "../../support/clock.js";
import { payoutsOnMemoryStores } from "../../support/payouts.js";

export const ADMIN = { userId: 1001, role: "admin" } as const;
export const PAYER = { userId: 1002, role: "payer" } as const;
export const APPROVER = { userId: 1004, role: "approver" } as const;
export const HOUR_MS = 3_600_000;
export const RULES: PayoutRules = {
  ...NO_RULES,
  approvalThresholdXaf: 100_000,
  approvalTtlMs: 24 * HOUR_MS,
  duplicateWindowMs: 60 * 60_000,
  timeZone: "Africa/Douala",
};

export let sandbox: SandboxHandle;
export let client: PaymentClient;
export let clock: FakeClock;
export let stores: Stores;
export let payouts: Payouts;

export async function start(rules: PayoutRules = RULES): Promise<void> {
  sandbox.reset();
  // 12:00 in Douala on a fixed day, so that the day of the caps is known.
  clock = fakeClock(Date.UTC(2024, 10, 23, 11, 0));
  ({ payouts, stores } = payoutsOnMemoryStores(client, clock, {
    retentionMs: 30 * 24 * HOUR_MS,
    confirmationTtlSeconds: 300,
    statusPollIntervalMs: 5000,
    rules,
  }));
  for (const member of [ADMIN, PAYER, APPROVER]) await stores.staff.set(member.userId, member.role);
}

export type Member = { userId: number; role: "admin" | "approver" | "payer" | "viewer" };

export async function prompt(who: Member, amount: string, phone = "237670000001") {
  const result = await payouts.preparation.prepare({
    kind: "disbursement",
    phone,
    amount,
    initiatorId: who.userId,
    initiatorRole: who.role,
    chatId: who.userId,
    locale: "en",
  });
  if (result.outcome === "refused") throw new Error(`prepare refused: ${result.reason}`);
  return result;
}

/** A payout confirmed by its initiator at or over the threshold: it waits. */
export async function waiting(who: Member = PAYER, amount = "250000"): Promise<Payout> {
  const { payout } = await prompt(who, amount);
  const confirmed = await payouts.submission.claim(payout.id, who);
  if (confirmed.outcome !== "approval_requested") throw new Error(confirmed.outcome);
  return confirmed.payout;
}

export function disburseCount(): number {
  return sandbox.countRequests({ method: "POST", path: "/disburse" });
}

export async function spentToday(day = "2024-11-23") {
  const usage = await stores.spending.usage(day);
  return { merchant: usage.merchantXaf, byUser: Object.fromEntries(usage.byUser) };
}

export async function outbox(): Promise<string[]> {
  return (await stores.outbox.claimDue(clock.nowMs + 1, 100, 1)).sort();
}

/** The hooks every test file of these steps runs: one sandbox, fresh stores per test. */
export function useRulesWorld(): void {
  beforeAll(async () => {
    sandbox = await startSandbox({ settleDelayMs: 600_000, rateLimitPerMinute: 0 });
    client = new PaymentClient({
      baseUrl: sandbox.url,
      apiKey: sandbox.apiKey,
      responseVerifyKeyPem: sandbox.publicKeyPem,
      requestTimeoutMs: 500,
      retry: { baseDelayMs: 10, maxDelayMs: 20 },
    });
  });

  afterAll(async () => {
    await client.close();
    await sandbox.close();
  });

  beforeEach(() => start());
}
