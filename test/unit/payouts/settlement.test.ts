import { describe, expect, it } from "vitest";
import { settledKey } from "../../support/payouts.js";
import { clock, payouts, pending, prepared, sandbox, stores, useStepWorld } from "./step-world.js";

useStepWorld();

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
