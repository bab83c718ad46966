import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Payout } from "../../../src/model/payout.js";
import { PaymentClient } from "../../../src/payments/client.js";
import type { Payouts } from "../../../src/payouts/payouts.js";
import type { ClaimResult } from "../../../src/payouts/types.js";
import { type SandboxHandle, startSandbox } from "../../../src/sandbox/index.js";
import type { Stores } from "../../../src/store/types.js";
import { type FakeClock, fakeClock } from "../../support/clock.js";
import { payoutsOnMemoryStores, settledKey } from "../../support/payouts.js";

const PAYER = 1002;
const ADMIN = 1001;
const ADMIN_ACTOR = { id: ADMIN, role: "admin" } as const;
const TTL_SECONDS = 300;
const POLL_MS = 5000;

let sandbox: SandboxHandle;
let client: PaymentClient;
let clock: FakeClock;
let stores: Stores;
let payouts: Payouts;

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

async function prepared(phone = "237670000001", amount = "5000"): Promise<Payout> {
  const result = await payouts.preparation.prepare({
    kind: "disbursement",
    phone,
    amount,
    initiatorId: PAYER,
    initiatorRole: "payer",
    chatId: PAYER,
    locale: "en",
  });
  if (!result.ok) throw new Error(`prepare refused: ${result.reason}`);
  return result.payout;
}

async function claimed(payout: Payout): Promise<Extract<ClaimResult, { outcome: "claimed" }>> {
  const claim = await payouts.submission.claim(payout.id, { userId: PAYER, role: "payer" });
  if (claim.outcome !== "claimed") throw new Error(`claim: ${claim.outcome}`);
  return claim;
}

/** A payout whose POST /disburse was answered 201: pending, with the sandbox's payment id. */
async function pending(phone = "237670000001", amount = "5000"): Promise<Payout> {
  const result = await payouts.submission.submit(await claimed(await prepared(phone, amount)));
  if (result.outcome !== "pending") throw new Error(`submit: ${result.outcome}`);
  return result.payout;
}

/** A payout whose answer was lost after the sandbox created the payment. */
async function unknownWithPayment(phone = "237670000001", amount = "5000") {
  sandbox.injectFault({ method: "POST", path: "/disburse", status: 500, afterHandling: true });
  const result = await payouts.submission.submit(await claimed(await prepared(phone, amount)));
  if (result.outcome !== "unknown") throw new Error(`submit: ${result.outcome}`);
  const payment = sandbox.snapshot().payments.at(-1);
  if (!payment) throw new Error("the sandbox made no payment");
  return { payout: result.payout, payment };
}

function disburseCount(): number {
  return sandbox.countRequests({ method: "POST", path: "/disburse" });
}

/**
 * Resolving a second unknown payout with the payment id that already resolved the first is
 * refused, and the first keeps it. Listed under both withPaymentId and asFailed.
 */
async function refusesAPaymentIdTakenByAnotherPayout(): Promise<void> {
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

describe("Submission.claim", () => {
  it("lets one Confirm through and answers every later one 'already'", async () => {
    const payout = await prepared();
    const results = await Promise.all(
      [1, 2, 3].map(() => payouts.submission.claim(payout.id, { userId: PAYER, role: "payer" })),
    );
    expect(results.map((r) => r.outcome).sort()).toEqual(["already", "already", "claimed"]);
    expect((await stores.payouts.get(payout.id))?.state).toBe("submitting");
  });

  it("refuses a Confirm from anyone but the initiator", async () => {
    const payout = await prepared();
    expect(
      (await payouts.submission.claim(payout.id, { userId: ADMIN, role: "admin" })).outcome,
    ).toBe("forbidden");
    expect((await stores.payouts.get(payout.id))?.state).toBe("awaiting_confirmation");
  });

  it("answers not_found for an unknown payout", async () => {
    expect(
      (await payouts.submission.claim("no-such-payout", { userId: PAYER, role: "payer" })).outcome,
    ).toBe("not_found");
  });

  it("expires a prompt whose TTL passed, and sends nothing", async () => {
    const payout = await prepared();
    clock.nowMs += TTL_SECONDS * 1000 + 1;
    const result = await payouts.submission.claim(payout.id, { userId: PAYER, role: "payer" });
    expect(result.outcome).toBe("expired");
    expect((await stores.payouts.get(payout.id))?.state).toBe("expired");
    expect(
      (await payouts.submission.claim(payout.id, { userId: PAYER, role: "payer" })).outcome,
    ).toBe("already");
    expect(disburseCount()).toBe(0);
  });

  it("still accepts a Confirm at the last moment of the TTL", async () => {
    const payout = await prepared();
    clock.nowMs += TTL_SECONDS * 1000;
    expect(
      (await payouts.submission.claim(payout.id, { userId: PAYER, role: "payer" })).outcome,
    ).toBe("claimed");
  });
});

describe("Submission.submit", () => {
  it("records a 201 as pending with the payment id and schedules the first poll", async () => {
    const payout = await pending();
    expect(payout.state).toBe("pending");
    expect(payout.paymentId).toBe(sandbox.snapshot().payments[0]?.id);
    expect(await stores.tracking.dueAt(payout.id)).toBe(clock.nowMs + POLL_MS);
    expect(disburseCount()).toBe(1);
  });

  it.each([
    { status: 403, what: "disbursements disabled" },
    { status: 400, what: "a bad request" },
  ])("maps a refusal ($what, $status) to rejected_by_api", async ({ status }) => {
    sandbox.injectFault({ method: "POST", path: "/disburse", status });
    const result = await payouts.submission.submit(await claimed(await prepared()));
    expect(result.outcome).toBe("refused");
    expect(result.payout.state).toBe("rejected_by_api");
    expect(result.payout.errorStatusCode).toBe(status);
    expect(await stores.tracking.size()).toBe(0);
    const [entry] = await stores.audit.recent(1);
    expect(entry).toMatchObject({
      action: "refused",
      actorRole: "system",
      from: "submitting",
      to: "rejected_by_api",
      details: { statusCode: status },
    });
  });

  it("maps a real refusal by the sandbox (disbursements switched off) to rejected_by_api", async () => {
    const payout = await prepared();
    sandbox.setDisbursementsEnabled(false);
    const result = await payouts.submission.submit(await claimed(payout));
    expect(result.outcome).toBe("refused");
    expect(result.payout.errorStatusCode).toBe(403);
    expect(sandbox.snapshot().payments).toHaveLength(0);
  });

  it("maps a 500 to unknown, never retries it, and records it in the audit log", async () => {
    sandbox.injectFault({ method: "POST", path: "/disburse", status: 500 });
    const payout = await prepared();
    const result = await payouts.submission.submit(await claimed(payout));
    expect(result.outcome).toBe("unknown");
    expect(result.payout.state).toBe("unknown");
    expect(disburseCount()).toBe(1);
    const [entry] = await stores.audit.recent(1);
    expect(entry).toMatchObject({ action: "lost", from: "submitting", to: "unknown" });
    expect(entry?.details?.reason).toEqual(expect.stringMatching(/may have reached/));
    expect(entry?.payoutId).toBe(payout.id);
  });

  it("maps a lost answer (the API hangs past the timeout) to unknown", async () => {
    sandbox.injectFault({ method: "POST", path: "/disburse", hang: true });
    const result = await payouts.submission.submit(await claimed(await prepared()));
    expect(result.outcome).toBe("unknown");
    expect(disburseCount()).toBe(1);
  });
});

describe("Settlement.settle", () => {
  it("leaves a payout pending while the API says pending", async () => {
    const payout = await pending("237670000003");
    const result = await payouts.settlement.settle(payout.id);
    expect(result.outcome).toBe("still_pending");
    expect((await stores.payouts.get(payout.id))?.state).toBe("pending");
    expect(await stores.outbox.size()).toBe(0);
  });

  it.each(["success", "failed", "canceled"] as const)(
    "settles %s only once the API itself reports it",
    async (status) => {
      const payout = await pending();
      sandbox.forceStatus(payout.paymentId ?? "", status);
      const result = await payouts.settlement.settle(payout.id);
      expect(result.outcome).toBe("settled");
      const stored = await stores.payouts.get(payout.id);
      expect(stored?.state).toBe(status);
      expect(stored?.apiStatus).toBe(status);
      expect(stored?.settledAtMs).toBe(clock.nowMs);
      expect(await stores.tracking.dueAt(payout.id)).toBeNull();
      expect(await stores.outbox.dueAt(settledKey(payout.id))).not.toBeNull();
    },
  );

  it("settles once: a second settle finds nothing to do and reads nothing", async () => {
    const payout = await pending();
    sandbox.forceStatus(payout.paymentId ?? "", "success");
    const results = await Promise.all([
      payouts.settlement.settle(payout.id),
      payouts.settlement.settle(payout.id),
    ]);
    expect(results.map((r) => r.outcome).sort()).toEqual(["not_tracked", "settled"]);
    const reads = sandbox.countRequests({ method: "GET", path: /^\/payments\// });
    expect((await payouts.settlement.settle(payout.id)).outcome).toBe("not_tracked");
    expect(sandbox.countRequests({ method: "GET", path: /^\/payments\// })).toBe(reads);
  });

  it("does not touch a payout that is not pending", async () => {
    const payout = await prepared();
    expect(await payouts.settlement.settle(payout.id)).toEqual({ outcome: "not_tracked", payout });
    expect((await payouts.settlement.settle("no-such-payout")).outcome).toBe("not_tracked");
  });
});

describe("Resolution.withPaymentId", () => {
  it("tracks an unknown payout again once the API confirms the payment matches", async () => {
    const { payout, payment } = await unknownWithPayment();
    const result = await payouts.resolution.withPaymentId(payout.id, ADMIN_ACTOR, payment.id);
    expect(result.outcome).toBe("resolved");
    const stored = await stores.payouts.get(payout.id);
    expect(stored?.state).toBe("pending");
    expect(stored?.paymentId).toBe(payment.id);
    expect(stored?.resolvedBy).toBe(ADMIN);
    expect(await stores.tracking.dueAt(payout.id)).toBe(clock.nowMs);
    expect(await stores.payouts.findByPaymentId(payment.id)).toMatchObject({ id: payout.id });
    const [entry] = await stores.audit.recent(1);
    expect(entry).toMatchObject({
      actorId: ADMIN,
      actorRole: "admin",
      action: "resolve_with_id",
      from: "unknown",
      to: "pending",
      payoutId: payout.id,
      details: { paymentId: payment.id },
    });
  });

  it("refuses a payment id the API does not know", async () => {
    const { payout } = await unknownWithPayment();
    const result = await payouts.resolution.withPaymentId(
      payout.id,
      ADMIN_ACTOR,
      "pay_does_not_exist",
    );
    expect(result.outcome).toBe("payment_not_found");
    expect((await stores.payouts.get(payout.id))?.state).toBe("unknown");
  });

  it("refuses a payment for another amount or number", async () => {
    const { payout } = await unknownWithPayment("237670000001", "5000");
    const otherAmount = await pending("237670000001", "7000");
    const otherNumber = await pending("237690000001", "5000");
    for (const other of [otherAmount, otherNumber]) {
      const result = await payouts.resolution.withPaymentId(
        payout.id,
        ADMIN_ACTOR,
        other.paymentId ?? "",
      );
      expect(result.outcome).toBe("mismatch");
    }
    expect((await stores.payouts.get(payout.id))?.state).toBe("unknown");
  });

  it(
    "refuses a payment id that already settles another payout",
    refusesAPaymentIdTakenByAnotherPayout,
  );

  it("refuses a payout that is not unknown", async () => {
    const payout = await pending();
    const result = await payouts.resolution.withPaymentId(
      payout.id,
      ADMIN_ACTOR,
      payout.paymentId ?? "",
    );
    expect(result.outcome).toBe("not_unknown");
    expect((await payouts.resolution.withPaymentId("nope-nope", ADMIN_ACTOR, "x")).outcome).toBe(
      "not_found",
    );
  });
});

describe("Resolution.asFailed", () => {
  it("marks an unknown payout failed, queues the payer's notice and records who did it", async () => {
    sandbox.injectFault({ method: "POST", path: "/disburse", status: 500 });
    const payout = await prepared();
    await payouts.submission.submit(await claimed(payout));
    const result = await payouts.resolution.asFailed(payout.id, ADMIN_ACTOR);
    expect(result.outcome).toBe("resolved");
    const stored = await stores.payouts.get(payout.id);
    expect(stored?.state).toBe("failed");
    expect(stored?.resolvedBy).toBe(ADMIN);
    expect(await stores.outbox.dueAt(settledKey(payout.id))).not.toBeNull();
    const [entry] = await stores.audit.recent(1);
    expect(entry).toMatchObject({
      actorId: ADMIN,
      actorRole: "admin",
      action: "resolve_failed",
      from: "unknown",
      to: "failed",
      payoutId: payout.id,
    });
  });

  it(
    "refuses a payment id that already settles another payout",
    refusesAPaymentIdTakenByAnotherPayout,
  );

  it("refuses a payout that is not unknown", async () => {
    const payout = await pending();
    expect((await payouts.resolution.asFailed(payout.id, ADMIN_ACTOR)).outcome).toBe("not_unknown");
    expect((await stores.payouts.get(payout.id))?.state).toBe("pending");
    expect((await payouts.resolution.asFailed("nope-nope", ADMIN_ACTOR)).outcome).toBe("not_found");
  });
});
