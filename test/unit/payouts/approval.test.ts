/**
 * The rules of issue 12 in the payout steps, on memory stores and the sandbox over HTTP:
 * four-eyes approval (request, approve, reject with a reason, expire), the daily caps
 * (checked at the prompt, reserved at Confirm, given back), the duplicate warning, and an
 * older prompt retired by a newer one.
 */
import { describe, expect, it } from "vitest";
import { noticeKey } from "../../../src/model/notice.js";
import {
  ADMIN,
  APPROVER,
  clock,
  disburseCount,
  HOUR_MS,
  outbox,
  PAYER,
  payouts,
  prompt,
  spentToday,
  stores,
  useRulesWorld,
  waiting,
} from "./rules-world.js";

useRulesWorld();

describe("four-eyes approval", () => {
  it("makes a Confirm at the threshold wait for the others, reserved, cards queued, nothing sent", async () => {
    const payout = await waiting(PAYER, "100000");
    expect(payout).toMatchObject({
      state: "awaiting_approval",
      limitDay: "2024-11-23",
      approvalExpiresAtMs: clock.nowMs + 24 * HOUR_MS,
    });
    const confirmed = await payouts.submission.claim(payout.id, PAYER);
    expect(confirmed.outcome).toBe("already");
    expect(await spentToday()).toEqual({ merchant: 100_000, byUser: { 1002: 100_000 } });
    expect(await outbox()).toEqual([
      noticeKey({ kind: "approval_requested", payoutId: payout.id }),
    ]);
    expect(disburseCount()).toBe(0);
    const [entry] = await stores.audit.recent(1);
    expect(entry).toMatchObject({
      action: "request_approval",
      actorId: PAYER.userId,
      to: "awaiting_approval",
    });
  });

  it("names every approver and admin but the initiator as the ones who may decide", async () => {
    const { payout } = await prompt(PAYER, "250000");
    const confirmed = await payouts.submission.claim(payout.id, PAYER);
    expect(confirmed).toMatchObject({ outcome: "approval_requested", approvers: [1001, 1004] });
    const own = await prompt(ADMIN, "300000");
    const byAdmin = await payouts.submission.claim(own.payout.id, ADMIN);
    expect(byAdmin).toMatchObject({ outcome: "approval_requested", approvers: [1004] });
  });

  it("claims nothing for approval under the threshold", async () => {
    const { payout } = await prompt(PAYER, "99999");
    expect((await payouts.submission.claim(payout.id, PAYER)).outcome).toBe("claimed");
  });

  it("claims an approved payout for one submission, as the approver's", async () => {
    const payout = await waiting();
    const approved = await payouts.approval.approve(payout.id, APPROVER);
    if (approved.outcome !== "claimed") throw new Error(approved.outcome);
    expect(approved.payout).toMatchObject({ state: "submitting", approvedBy: APPROVER.userId });
    expect(approved.actor).toEqual({ id: APPROVER.userId, role: "approver" });
    const sent = await payouts.submission.submit(approved);
    expect(sent.outcome).toBe("pending");
    expect(disburseCount()).toBe(1);
    const entries = await stores.audit.recent(3);
    expect(entries.map((entry) => [entry.action, entry.actorId])).toEqual([
      ["accepted", 0],
      ["submit", APPROVER.userId],
      ["approve", APPROVER.userId],
    ]);
    // The payer, who did not press last, is told what came of it.
    expect(await outbox()).toContain(noticeKey({ kind: "approved_outcome", payoutId: payout.id }));
  });

  it("never lets the initiator decide on their own payout, even an admin", async () => {
    const payout = await waiting(ADMIN);
    expect(await payouts.approval.approve(payout.id, ADMIN)).toMatchObject({
      outcome: "forbidden",
      why: "own_payout",
    });
    expect(await payouts.approval.reject(payout.id, ADMIN)).toMatchObject({
      outcome: "forbidden",
      why: "own_payout",
    });
    expect((await stores.payouts.get(payout.id))?.state).toBe("awaiting_approval");
  });

  it("reads the role at the press: an approver demoted since the card cannot decide", async () => {
    const payout = await waiting();
    const demoted = { userId: APPROVER.userId, role: "payer" } as const;
    expect(await payouts.approval.approve(payout.id, demoted)).toMatchObject({
      outcome: "forbidden",
      why: "not_allowed",
    });
    expect(disburseCount()).toBe(0);
  });

  it("lets the first of two decisions at once win, and the other find it decided", async () => {
    const payout = await waiting();
    const [approved, rejected] = await Promise.all([
      payouts.approval.approve(payout.id, APPROVER),
      payouts.approval.reject(payout.id, ADMIN),
    ]);
    const outcomes = [approved.outcome, rejected.outcome];
    expect(outcomes.filter((outcome) => outcome === "already")).toHaveLength(1);
    const decisions = (await stores.audit.recent(10)).filter((entry) =>
      ["approve", "reject"].includes(entry.action),
    );
    expect(decisions).toHaveLength(1);
  });

  it("gives a rejected payout's amount back, and takes the rejecting approver's reason once", async () => {
    const payout = await waiting();
    const rejected = await payouts.approval.reject(payout.id, APPROVER);
    expect(rejected).toMatchObject({
      outcome: "rejected",
      payout: { rejectedBy: APPROVER.userId },
    });
    expect(await spentToday()).toEqual({ merchant: 0, byUser: {} });

    expect((await payouts.approval.addReason(payout.id, ADMIN, "not me")).outcome).toBe(
      "not_yours",
    );
    const added = await payouts.approval.addReason(payout.id, APPROVER, "  wrong\u0000 supplier ");
    expect(added).toMatchObject({
      outcome: "added",
      payout: { rejectionReason: "wrong supplier" },
    });
    expect((await payouts.approval.addReason(payout.id, APPROVER, "again")).outcome).toBe(
      "already",
    );
    const [entry] = await stores.audit.recent(1);
    expect(entry).toMatchObject({
      action: "rejection_reason",
      actorId: APPROVER.userId,
      details: { reason: "wrong supplier" },
    });
    expect(await outbox()).toContain(noticeKey({ kind: "rejection_reason", payoutId: payout.id }));
  });

  it("expires what nobody decided in time, as the bot, giving the amount back", async () => {
    const late = await waiting();
    clock.nowMs += 23 * HOUR_MS;
    const fresh = await waiting(PAYER, "300000");
    clock.nowMs += HOUR_MS;
    expect(await payouts.approval.expireDue()).toBe(1);
    expect((await stores.payouts.get(late.id))?.state).toBe("expired");
    expect((await stores.payouts.get(fresh.id))?.state).toBe("awaiting_approval");
    // The late one gave its amount back to its day; the fresh one counts on the next day.
    expect(await spentToday()).toEqual({ merchant: 0, byUser: {} });
    expect(await spentToday("2024-11-24")).toEqual({
      merchant: 300_000,
      byUser: { 1002: 300_000 },
    });
    const [entry] = await stores.audit.recent(1);
    expect(entry).toMatchObject({ action: "expire", actorRole: "system", to: "expired" });
    expect(await payouts.approval.expireDue()).toBe(0);
  });

  it("expires a payout whose time is up when an approver presses before the sweep", async () => {
    const payout = await waiting();
    clock.nowMs += 24 * HOUR_MS;
    expect((await payouts.approval.approve(payout.id, APPROVER)).outcome).toBe("expired");
    expect((await stores.payouts.get(payout.id))?.state).toBe("expired");
    expect(disburseCount()).toBe(0);
  });

  it("lists for an approver what waits for them, oldest first, never their own or the expired", async () => {
    const first = await waiting(PAYER, "150000");
    clock.nowMs += 1000;
    const second = await waiting(ADMIN, "200000");
    const forApprover = await payouts.approval.waitingFor(APPROVER);
    expect(forApprover.map((payout) => payout.id)).toEqual([first.id, second.id]);
    expect((await payouts.approval.waitingFor(ADMIN)).map((payout) => payout.id)).toEqual([
      first.id,
    ]);
    clock.nowMs += 24 * HOUR_MS;
    expect(await payouts.approval.waitingFor(APPROVER)).toEqual([]);
  });
});
