/**
 * What the step test files share (submission, settlement, resolution): one sandbox over
 * HTTP, memory stores made afresh for each test, and the helpers that bring a payout to a
 * state. The `let`s are live bindings: each test reads the current test's stores.
 */
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import type { Payout } from "../../../src/model/payout.js";
import { PaymentClient } from "../../../src/payments/client.js";
import type { Payouts } from "../../../src/payouts/payouts.js";
import type { ClaimResult } from "../../../src/payouts/types.js";
import { type SandboxHandle, startSandbox } from "../../../src/sandbox/index.js";
import type { Stores } from "../../../src/store/types.js";
import { type FakeClock, fakeClock } from "../../support/clock.js";
import { payoutsOnMemoryStores } from "../../support/payouts.js";

export const PAYER = 1002;
export const ADMIN = 1001;
export const ADMIN_ACTOR = { id: ADMIN, role: "admin" } as const;
export const TTL_SECONDS = 300;
export const POLL_MS = 5000;

export let sandbox: SandboxHandle;
export let client: PaymentClient;
export let clock: FakeClock;
export let stores: Stores;
export let payouts: Payouts;

export async function prepared(phone = "237670000001", amount = "5000"): Promise<Payout> {
  const result = await payouts.preparation.prepare({
    kind: "disbursement",
    phone,
    amount,
    initiatorId: PAYER,
    initiatorRole: "payer",
    chatId: PAYER,
    locale: "en",
  });
  if (result.outcome === "refused") throw new Error(`prepare refused: ${result.reason}`);
  return result.payout;
}

export async function claimed(
  payout: Payout,
): Promise<Extract<ClaimResult, { outcome: "claimed" }>> {
  const claim = await payouts.submission.claim(payout.id, { userId: PAYER, role: "payer" });
  if (claim.outcome !== "claimed") throw new Error(`claim: ${claim.outcome}`);
  return claim;
}

/** A payout whose POST /disburse was answered 201: pending, with the sandbox's payment id. */
export async function pending(phone = "237670000001", amount = "5000"): Promise<Payout> {
  const result = await payouts.submission.submit(await claimed(await prepared(phone, amount)));
  if (result.outcome !== "pending") throw new Error(`submit: ${result.outcome}`);
  return result.payout;
}

/** A payout whose answer was lost after the sandbox created the payment. */
export async function unknownWithPayment(phone = "237670000001", amount = "5000") {
  sandbox.injectFault({ method: "POST", path: "/disburse", status: 500, afterHandling: true });
  const result = await payouts.submission.submit(await claimed(await prepared(phone, amount)));
  if (result.outcome !== "unknown") throw new Error(`submit: ${result.outcome}`);
  const payment = sandbox.snapshot().payments.at(-1);
  if (!payment) throw new Error("the sandbox made no payment");
  return { payout: result.payout, payment };
}

export function disburseCount(): number {
  return sandbox.countRequests({ method: "POST", path: "/disburse" });
}

/**
 * Resolving a second unknown payout with the payment id that already resolved the first is
 * refused, and the first keeps it. Listed under both withPaymentId and asFailed.
 */
export async function refusesAPaymentIdTakenByAnotherPayout(): Promise<void> {
  const first = await unknownWithPayment();
  sandbox.injectFault({ method: "POST", path: "/disburse", status: 500 });
  const second = await payouts.submission.submit(await claimed(await prepared()));
  expect(second.outcome).toBe("unknown");
  const firstResult = await payouts.resolution.withPaymentId(
    first.payout.id,
    ADMIN_ACTOR,
    first.payment.id,
  );
  expect(firstResult.outcome).toBe("resolved");
  const secondResult = await payouts.resolution.withPaymentId(
    second.payout.id,
    ADMIN_ACTOR,
    first.payment.id,
  );
  expect(secondResult.outcome).toBe("payment_taken");
  expect((await stores.payouts.get(second.payout.id))?.state).toBe("unknown");
  expect(await stores.payouts.findByPaymentId(first.payment.id)).toMatchObject({
    id: first.payout.id,
  });
}

/** The hooks every test file of these steps runs: one sandbox, fresh stores per test. */
export function useStepWorld(): void {
  beforeAll(async () => {
    // Payments stay pending until a test settles them with forceStatus.
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

  beforeEach(async () => {
    sandbox.reset();
    clock = fakeClock(Date.now());
    ({ payouts, stores } = payoutsOnMemoryStores(client, clock, {
      retentionMs: 86_400_000,
      confirmationTtlSeconds: TTL_SECONDS,
      statusPollIntervalMs: POLL_MS,
    }));
    // Every claim reads its initiator's role from the staff record.
    await stores.staff.set(PAYER, "payer");
    await stores.staff.set(ADMIN, "admin");
  });
}
