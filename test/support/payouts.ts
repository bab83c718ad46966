import { noticeKey } from "../../src/model/notice.js";
import type { Payout } from "../../src/model/payout.js";
import { createPayouts, type Payouts } from "../../src/payouts/payouts.js";
import type { PaymentGateway, PayoutRules } from "../../src/payouts/types.js";
import { createMemoryStores } from "../../src/store/memory.js";
import type { Stores } from "../../src/store/types.js";
import type { FakeClock } from "./clock.js";

let counter = 0;

/**
 * A disbursement as the service leaves it once the Payment API accepted it at `nowMs`:
 * pending, with a payment id; the id and payment id are new on every call.
 */
export function acceptedPayout(nowMs: number, overrides: Partial<Payout> = {}): Payout {
  counter += 1;
  return {
    id: `payout-${counter}-abcdef`,
    kind: "disbursement",
    state: "pending",
    phone: "237670000001",
    operator: "mtn",
    recipientName: "Jean-Paul Mbarga",
    amount: 5000,
    initiatorId: 1002,
    chatId: 1002,
    locale: "en",
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    expiresAtMs: nowMs + 300_000,
    submittedAtMs: nowMs,
    paymentId: `pay-${counter}`,
    ...overrides,
  };
}

/**
 * The payout steps on in-memory stores, both reading `clock`. `retentionMs` is how long the
 * stores keep a settled payout; the other options are the steps' own (no `rules`: none).
 */
export function payoutsOnMemoryStores(
  gateway: PaymentGateway,
  clock: FakeClock,
  options: {
    retentionMs: number;
    confirmationTtlSeconds: number;
    statusPollIntervalMs: number;
    rules?: PayoutRules;
  },
): { payouts: Payouts; stores: Stores } {
  const { retentionMs, ...stepOptions } = options;
  const stores = createMemoryStores({ retentionMs, now: clock.now });
  const payouts = createPayouts({ gateway, stores, now: clock.now, ...stepOptions });
  return { payouts, stores };
}

/** The outbox key of the notice that tells a payout's payer its final status. */
export function settledKey(payoutId: string): string {
  return noticeKey({ kind: "settled", payoutId });
}
