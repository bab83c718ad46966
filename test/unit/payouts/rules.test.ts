/**
 * The rules of issue 12 in the payout steps, on memory stores and the sandbox over HTTP:
 * four-eyes approval (request, approve, reject with a reason, expire), the daily caps
 * (checked at the prompt, reserved at Confirm, given back), the duplicate warning, and an
 * older prompt retired by a newer one.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { noticeKey } from "../../../src/model/notice.js";
import type { Payout } from "../../../src/model/payout.js";
import { PaymentClient } from "../../../src/payments/client.js";
import { NO_RULES, type Payouts } from "../../../src/payouts/payouts.js";
import type { PayoutRules } from "../../../src/payouts/types.js";
import { type SandboxHandle, startSandbox } from "../../../src/sandbox/index.js";
import type { Stores } from "../../../src/store/types.js";
import { type FakeClock, fakeClock } from "../../support/clock.js";
import { payoutsOnMemoryStores } from "../../support/payouts.js";

const ADMIN = { userId: 1001, role: "admin" } as const;
const PAYER = { userId: 1002, role: "payer" } as const;
const APPROVER = { userId: 1004, role: "approver" } as const;
const HOUR_MS = 3_600_000;
const RULES: PayoutRules = {
  ...NO_RULES,
  approvalThresholdXaf: 100_000,
  approvalTtlMs: 24 * HOUR_MS,
  duplicateWindowMs: 60 * 60_000,
  timeZone: "Africa/Douala",
};

let sandbox: SandboxHandle;
let client: PaymentClient;
let clock: FakeClock;
let stores: Stores;
let payouts: Payouts;

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

async function start(rules: PayoutRules = RULES): Promise<void> {
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

beforeEach(() => start());

type Member = { userId: number; role: "admin" | "approver" | "payer" | "viewer" };

async function prompt(who: Member, amount: string, phone = "237670000001") {
  const result = await payouts.preparation.prepare({
    kind: "disbursement",
    phone,
    amount,
    initiatorId: who.userId,
    initiatorRole: who.role,
    chatId: who.userId,
    locale: "en",
  });
  if (!result.ok) throw new Error(`prepare refused: ${result.reason}`);
  return result;
}

/** A payout confirmed by its initiator at or over the threshold: it waits. */
async function waiting(who: Member = PAYER, amount = "250000"): Promise<Payout> {
  const { payout } = await prompt(who, amount);
  const confirmed = await payouts.submission.claim(payout.id, who);
  if (confirmed.outcome !== "approval_requested") throw new Error(confirmed.outcome);
  return confirmed.payout;
}

function disburseCount(): number {
  return sandbox.countRequests({ method: "POST", path: "/disburse" });
}

async function spentToday(day = "2024-11-23") {
  const usage = await stores.spending.usage(day);
  return { merchant: usage.merchantXaf, byUser: Object.fromEntries(usage.byUser) };
}

async function outbox(): Promise<string[]> {
  return (await stores.outbox.claimDue(clock.nowMs + 1, 100, 1)).sort();
}

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

describe("daily limits", () => {
  beforeEach(() =>
    start({
      ...RULES,
      approvalThresholdXaf: undefined,
      payerDailyLimitXaf: 10_000,
      merchantDailyLimitXaf: 15_000,
    }),
  );

  it("refuses a prompt over the payer's cap with what is left, audited, storing nothing", async () => {
    const { payout } = await prompt(PAYER, "6000");
    await payouts.submission.claim(payout.id, PAYER);
    const refused = await payouts.preparation.prepare({
      kind: "disbursement",
      phone: "237690000001",
      amount: "5000",
      initiatorId: PAYER.userId,
      initiatorRole: "payer",
      chatId: PAYER.userId,
      locale: "en",
    });
    expect(refused).toEqual({
      ok: false,
      reason: "over_limit",
      over: { limit: "payer", capXaf: 10_000, usedXaf: 6000, leftXaf: 4000 },
    });
    const [entry] = await stores.audit.recent(1);
    expect(entry).toMatchObject({
      action: "limit_refused",
      actorId: PAYER.userId,
      amount: 5000,
      details: { step: "prompt", limit: "payer", capXaf: 10_000, usedXaf: 6000 },
    });
    expect((await stores.payouts.list({ userId: PAYER.userId, offset: 0, limit: 5 })).total).toBe(
      1,
    );
  });

  it("refuses a Confirm that someone else's spending took over the cap, sending nothing", async () => {
    const mine = await prompt(PAYER, "8000");
    const theirs = await prompt(ADMIN, "9000", "237690000001");
    expect((await payouts.submission.claim(theirs.payout.id, ADMIN)).outcome).toBe("claimed");
    const refused = await payouts.submission.claim(mine.payout.id, PAYER);
    expect(refused).toMatchObject({
      outcome: "over_limit",
      over: { limit: "merchant", capXaf: 15_000, usedXaf: 9000, leftXaf: 6000 },
    });
    expect((await stores.payouts.get(mine.payout.id))?.state).toBe("awaiting_confirmation");
    expect((await stores.audit.recent(1))[0]).toMatchObject({
      action: "limit_refused",
      payoutId: mine.payout.id,
      details: { step: "confirm", limit: "merchant" },
    });
  });

  it("gives a refused payment's amount back, so the day's room comes back", async () => {
    sandbox.injectFault({ method: "POST", path: "/disburse", status: 403 });
    const { payout } = await prompt(PAYER, "10000");
    const claimed = await payouts.submission.claim(payout.id, PAYER);
    if (claimed.outcome !== "claimed") throw new Error(claimed.outcome);
    expect((await payouts.submission.submit(claimed)).outcome).toBe("refused");
    expect(await spentToday()).toEqual({ merchant: 0, byUser: {} });
    expect((await prompt(PAYER, "10000", "237690000001")).payout.state).toBe(
      "awaiting_confirmation",
    );
  });

  it("counts no collection: money coming in is capped by nothing", async () => {
    const collection = await payouts.preparation.prepare({
      kind: "collection",
      phone: "237670000001",
      amount: "20000",
      initiatorId: PAYER.userId,
      initiatorRole: "payer",
      chatId: PAYER.userId,
      locale: "en",
    });
    if (!collection.ok) throw new Error(collection.reason);
    const claimed = await payouts.submission.claim(collection.payout.id, PAYER);
    expect(claimed).toMatchObject({ outcome: "claimed", payout: { state: "submitting" } });
    expect((await stores.payouts.get(collection.payout.id))?.limitDay).toBeUndefined();
    expect(await spentToday()).toEqual({ merchant: 0, byUser: {} });
  });

  it("reports today's caps and what each payer counted", async () => {
    for (const [who, amount] of [
      [PAYER, "4000"],
      [ADMIN, "7000"],
    ] as const) {
      const { payout } = await prompt(who, amount, who === PAYER ? "237670000001" : "237690000001");
      await payouts.submission.claim(payout.id, who);
    }
    expect(await payouts.limits.report()).toEqual({
      day: "2024-11-23",
      payerCapXaf: 10_000,
      merchantCapXaf: 15_000,
      merchantUsedXaf: 11_000,
      byUser: new Map([
        [PAYER.userId, 4000],
        [ADMIN.userId, 7000],
      ]),
    });
  });
});

describe("duplicate warning and retired prompts", () => {
  it("warns of the same amount to the same number by anyone, and notes it on the payout", async () => {
    const earlier = await prompt(ADMIN, "5000");
    await payouts.submission.claim(earlier.payout.id, ADMIN);
    const again = await prompt(PAYER, "5000");
    expect(again.duplicate?.id).toBe(earlier.payout.id);
    expect(again.payout.duplicateOf).toBe(earlier.payout.id);
    // Its Confirm is audited with the payout it repeats: the payer chose to pay again.
    await payouts.submission.claim(again.payout.id, PAYER);
    // The claim audits its confirm, then the submission in its own step.
    const entries = await stores.audit.recent(2);
    expect(entries.map((entry) => entry.action)).toEqual(["submit", "confirm"]);
    expect(entries.find((entry) => entry.action === "confirm")).toMatchObject({
      details: { duplicateOf: earlier.payout.id },
    });
  });

  it("warns of nothing for another amount, a prompt never confirmed, or a payout that paid nothing", async () => {
    const other = await prompt(ADMIN, "6000");
    await payouts.submission.claim(other.payout.id, ADMIN);
    await prompt(APPROVER, "5000");
    const cancelled = await prompt(ADMIN, "5000");
    await payouts.preparation.cancel(cancelled.payout.id, ADMIN);
    expect((await prompt(PAYER, "5000")).duplicate).toBeUndefined();
  });

  it("warns of nothing once the window has passed", async () => {
    const earlier = await prompt(ADMIN, "5000");
    await payouts.submission.claim(earlier.payout.id, ADMIN);
    clock.nowMs += 60 * 60_000 + 1;
    expect((await prompt(PAYER, "5000")).duplicate).toBeUndefined();
  });

  it("retires the person's older open prompt in the chat when they start a new one", async () => {
    const older = await prompt(PAYER, "5000");
    const someoneElse = await prompt(ADMIN, "7000");
    const newer = await prompt(PAYER, "8000");
    expect(newer.replaced).toMatchObject({ id: older.payout.id, state: "cancelled" });
    expect((await stores.payouts.get(someoneElse.payout.id))?.state).toBe("awaiting_confirmation");
    expect((await stores.audit.recent(2)).find((entry) => entry.action === "cancel")).toMatchObject(
      {
        actorId: PAYER.userId,
        details: { replacedBy: newer.payout.id },
      },
    );
    // /cancel retires the newer one; nothing is left to retire after that.
    const retired = await payouts.preparation.retire(newer.payout.id, PAYER, { command: "cancel" });
    expect(retired?.state).toBe("cancelled");
    expect(
      await payouts.preparation.retire(newer.payout.id, PAYER, { command: "cancel" }),
    ).toBeNull();
  });
});
