import { describe, expect, it } from "vitest";
import {
  ADMIN,
  claimed,
  clock,
  disburseCount,
  PAYER,
  POLL_MS,
  payouts,
  pending,
  prepared,
  sandbox,
  stores,
  TTL_SECONDS,
  useStepWorld,
} from "./step-world.js";

useStepWorld();

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
