import { describe, expect, it } from "vitest";
import { settledKey } from "../../support/payouts.js";
import {
  ADMIN,
  ADMIN_ACTOR,
  claimed,
  clock,
  payouts,
  pending,
  prepared,
  refusesAPaymentIdTakenByAnotherPayout,
  sandbox,
  stores,
  unknownWithPayment,
  useStepWorld,
} from "./step-world.js";

useStepWorld();

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
