import { describe, expect, it } from "vitest";
import {
  ATTENTION_REASONS,
  type AttentionReason,
  noticeKey,
} from "../../../../src/model/notice.js";
import type { Payout } from "../../../../src/model/payout.js";
import { PaymentApiError, PaymentTimeoutError } from "../../../../src/payments/errors.js";
import { nextPollDelayMs, PayoutTracker } from "../../../../src/payouts/loops/tracker.js";
import type { Stores } from "../../../../src/store/types.js";
import { type FakeClock, fakeClock } from "../../../support/clock.js";
import { acceptedPayout, payoutsOnMemoryStores, settledKey } from "../../../support/payouts.js";
import { ScriptedGateway } from "../../../support/scripted-gateway.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const START_MS = Date.UTC(2025, 0, 6, 9, 0, 0);

interface Attention {
  payoutId: string;
  reason: AttentionReason;
}

interface TrackerOverrides {
  random?: () => number;
  stuckAfterMs?: number;
  stopAfterMs?: number;
  submittingLimitMs?: number;
}

interface Setup {
  clock: FakeClock;
  stores: Stores;
  gateway: ScriptedGateway;
  /** How many times a tracker said it queued a notice. */
  queued: { count: number };
  tracker: (overrides?: TrackerOverrides) => PayoutTracker;
}

/** The attention notices now in the outbox for these payouts. */
async function attentionQueued(s: Setup, payoutIds: readonly string[]): Promise<Attention[]> {
  const found: Attention[] = [];
  for (const payoutId of payoutIds) {
    for (const reason of ATTENTION_REASONS) {
      const key = noticeKey({ kind: "attention", payoutId, reason });
      if ((await s.stores.outbox.dueAt(key)) !== null) found.push({ payoutId, reason });
    }
  }
  return found;
}

function setup(pollIntervalMs = 5 * SECOND): Setup {
  const clock = fakeClock(START_MS);
  const gateway = new ScriptedGateway();
  const { payouts, stores } = payoutsOnMemoryStores(gateway, clock, {
    retentionMs: 90 * 24 * HOUR,
    confirmationTtlSeconds: 300,
    statusPollIntervalMs: pollIntervalMs,
  });
  const queued = { count: 0 };
  const tracker = (overrides: TrackerOverrides = {}) =>
    new PayoutTracker({
      settlement: payouts.settlement,
      stores,
      pollIntervalMs,
      stuckAfterMs: overrides.stuckAfterMs ?? 24 * HOUR,
      stopAfterMs: overrides.stopAfterMs ?? 90 * 24 * HOUR,
      submittingLimitMs: overrides.submittingLimitMs ?? 5 * MINUTE,
      now: clock.now,
      random: overrides.random ?? (() => 0.5),
      onNoticeQueued: () => {
        queued.count += 1;
      },
    });
  return { clock, stores, gateway, queued, tracker };
}

/** A payout as submission leaves it after a 201: pending, with a payment id, first poll due. */
async function pendingPayout(
  s: Setup,
  pollIntervalMs = 5 * SECOND,
  overrides: Partial<Payout> = {},
): Promise<Payout> {
  const now = s.clock.nowMs;
  const payout = acceptedPayout(now, overrides);
  await s.stores.payouts.create(payout);
  if (payout.state === "pending") await s.stores.tracking.schedule(payout.id, now + pollIntervalMs);
  return payout;
}

/** Runs the tracker on the fake clock, jumping from one due time to the next. */
async function runUntil(s: Setup, tracker: PayoutTracker, id: string, untilMs: number) {
  for (let round = 0; round < 10_000; round++) {
    const due = await s.stores.tracking.dueAt(id);
    if (due === null || due > untilMs) return;
    s.clock.nowMs = Math.max(s.clock.nowMs, due);
    await tracker.tick();
  }
  throw new Error("the tracker never stopped polling");
}

/** How many GETs the schedule spends on a payment that settles `settleAfterMs` after submission. */
async function pollsUntilSettled(settleAfterMs: number, random: number): Promise<number> {
  const s = setup();
  const payout = await pendingPayout(s);
  s.gateway.statusAt = () => (s.clock.nowMs - START_MS >= settleAfterMs ? "success" : "pending");
  await runUntil(s, s.tracker({ random: () => random }), payout.id, START_MS + 24 * HOUR);
  expect((await s.stores.payouts.get(payout.id))?.state).toBe("success");
  return s.gateway.polls.length;
}

describe("nextPollDelayMs", () => {
  it("starts at the base delay", () => {
    expect(nextPollDelayMs(0, 5000, 1.6, 900_000, () => 0.5)).toBe(5000);
  });

  it("grows by the factor with every poll", () => {
    const delays = [0, 1, 2, 3, 4].map((count) =>
      nextPollDelayMs(count, 5000, 1.6, 900_000, () => 0.5),
    );
    expect(delays).toEqual([5000, 8000, 12_800, 20_480, 32_768]);
  });

  it("never goes over the cap, however many polls were spent", () => {
    for (const count of [20, 50, 1000]) {
      const delay = nextPollDelayMs(count, 5000, 1.6, 900_000, () => 0.5);
      expect(delay).toBe(900_000);
    }
  });

  it("adds at most ±10% of jitter, as whole milliseconds", () => {
    expect(nextPollDelayMs(1, 5000, 1.6, 900_000, () => 0)).toBe(7200);
    expect(nextPollDelayMs(1, 5000, 1.6, 900_000, () => 0.999_999)).toBe(8800);
    for (let i = 0; i < 200; i++) {
      const delay = nextPollDelayMs(3, 5000, 1.6, 900_000);
      expect(Number.isInteger(delay)).toBe(true);
      expect(delay).toBeGreaterThanOrEqual(Math.floor(20_480 * 0.9));
      expect(delay).toBeLessThanOrEqual(Math.ceil(20_480 * 1.1));
    }
  });

  it("keeps the jitter inside the cap's ±10% once capped", () => {
    expect(nextPollDelayMs(100, 5000, 1.6, 900_000, () => 0)).toBe(810_000);
    expect(nextPollDelayMs(100, 5000, 1.6, 900_000, () => 0.999_999)).toBe(990_000);
  });
});

describe("PayoutTracker's schedule (base 5 s)", () => {
  it.each([
    { after: "10 s", settleAfterMs: 10 * SECOND, expected: 2 },
    { after: "1 min", settleAfterMs: MINUTE, expected: 5 },
    { after: "10 min", settleAfterMs: 10 * MINUTE, expected: 10 },
  ])("spends $expected polls on a payout that settles after $after", async (row) => {
    expect(await pollsUntilSettled(row.settleAfterMs, 0.5)).toBe(row.expected);
  });

  it.each([0, 0.999])(
    "stays within about a dozen polls for 10 min whatever the jitter (%s)",
    async (random) => {
      const polls = await pollsUntilSettled(10 * MINUTE, random);
      expect(polls).toBeGreaterThanOrEqual(9);
      expect(polls).toBeLessThanOrEqual(12);
    },
  );

  it("spends a bounded number of polls on a payout that stays pending for a day", async () => {
    const s = setup();
    const payout = await pendingPayout(s);
    await runUntil(s, s.tracker(), payout.id, START_MS + 24 * HOUR);
    // About ten polls to reach the 15 min cap, then four an hour.
    expect(s.gateway.polls.length).toBeLessThanOrEqual(24 * 4 + 12);
    expect(await s.stores.tracking.dueAt(payout.id)).not.toBeNull();
  });
});

describe("PayoutTracker", () => {
  it("stops tracking a payout once the API reports it final, and queues the payer's notice", async () => {
    const s = setup();
    const payout = await pendingPayout(s);
    s.gateway.statusAt = () => "failed";
    s.clock.nowMs += 5 * SECOND;
    expect(await s.tracker().tick()).toBe(1);
    expect((await s.stores.payouts.get(payout.id))?.state).toBe("failed");
    expect(await s.stores.tracking.dueAt(payout.id)).toBeNull();
    expect(await s.stores.outbox.dueAt(settledKey(payout.id))).not.toBeNull();
  });

  it("does not poll a payout before it is due", async () => {
    const s = setup();
    await pendingPayout(s);
    s.clock.nowMs += 4 * SECOND;
    expect(await s.tracker().tick()).toBe(0);
    expect(s.gateway.polls).toHaveLength(0);
  });

  it("counts polls on the payout and backs off from one to the next", async () => {
    const s = setup();
    const payout = await pendingPayout(s);
    const tracker = s.tracker();
    s.clock.nowMs += 5 * SECOND;
    await tracker.tick();
    expect((await s.stores.payouts.get(payout.id))?.pollCount).toBe(1);
    expect(await s.stores.tracking.dueAt(payout.id)).toBe(s.clock.nowMs + 8000);
    s.clock.nowMs += 8 * SECOND;
    await tracker.tick();
    expect((await s.stores.payouts.get(payout.id))?.pollCount).toBe(2);
    expect(await s.stores.tracking.dueAt(payout.id)).toBe(s.clock.nowMs + 12_800);
  });

  it("waits as long as a 429's Retry-After asks before polling again", async () => {
    const s = setup();
    const payout = await pendingPayout(s);
    s.gateway.failures.push(
      new PaymentApiError("getPayment", {
        statusCode: 429,
        apiMessage: "Too many requests",
        retryAfterMs: 30 * SECOND,
      }),
    );
    const tracker = s.tracker();
    s.clock.nowMs += 5 * SECOND;
    await tracker.tick();
    expect(await s.stores.tracking.dueAt(payout.id)).toBe(s.clock.nowMs + 30 * SECOND);
    // Nothing is polled until then.
    s.clock.nowMs += 29 * SECOND;
    await tracker.tick();
    expect(s.gateway.polls).toHaveLength(1);
    s.clock.nowMs += SECOND;
    await tracker.tick();
    expect(s.gateway.polls).toHaveLength(2);
  });

  it("tries again one interval later when the API cannot be read", async () => {
    const s = setup();
    const payout = await pendingPayout(s);
    s.gateway.failures.push(new PaymentTimeoutError("getPayment", 15_000));
    s.clock.nowMs += 5 * SECOND;
    await s.tracker().tick();
    expect(await s.stores.tracking.dueAt(payout.id)).toBe(s.clock.nowMs + 5 * SECOND);
    expect((await s.stores.payouts.get(payout.id))?.state).toBe("pending");
  });

  it("reports a payout still pending after the stuck limit once, and keeps polling it", async () => {
    const s = setup();
    const payout = await pendingPayout(s);
    const tracker = s.tracker({ stuckAfterMs: HOUR });
    await runUntil(s, tracker, payout.id, START_MS + HOUR - 1);
    expect(await attentionQueued(s, [payout.id])).toEqual([]);
    await runUntil(s, tracker, payout.id, START_MS + 3 * HOUR);
    expect(await attentionQueued(s, [payout.id])).toEqual([
      { payoutId: payout.id, reason: "stuck" },
    ]);
    expect(s.queued.count).toBe(1);
    const stored = await s.stores.payouts.get(payout.id);
    expect(stored?.stuckReportedAtMs).toBeGreaterThanOrEqual(START_MS + HOUR);
    expect(stored?.state).toBe("pending");
    expect(await s.stores.tracking.dueAt(payout.id)).not.toBeNull();
  });

  it("polls a payout past the stuck limit hourly, not every 15 minutes", async () => {
    const s = setup();
    const payout = await pendingPayout(s);
    const tracker = s.tracker({ stuckAfterMs: HOUR });
    await runUntil(s, tracker, payout.id, START_MS + 3 * HOUR);
    const pollsBefore = s.gateway.polls.length;
    await runUntil(s, tracker, payout.id, START_MS + 13 * HOUR);
    // Ten more hours: about ten polls (±10% jitter), where 15-minute polls would make 40.
    expect(s.gateway.polls.length - pollsBefore).toBeGreaterThanOrEqual(9);
    expect(s.gateway.polls.length - pollsBefore).toBeLessThanOrEqual(11);
  });

  it("stops polling a payout still pending at the retention, even across resumes", async () => {
    const s = setup();
    const payout = await pendingPayout(s);
    const tracker = s.tracker({ stuckAfterMs: HOUR, stopAfterMs: 6 * HOUR });
    await runUntil(s, tracker, payout.id, START_MS + 7 * HOUR);
    expect(await s.stores.tracking.dueAt(payout.id)).toBeNull();
    const polls = s.gateway.polls.length;
    s.clock.nowMs += 2 * HOUR;
    await tracker.resume();
    s.clock.nowMs += HOUR;
    await tracker.tick();
    expect(s.gateway.polls).toHaveLength(polls);
    const stored = await s.stores.payouts.get(payout.id);
    expect(stored?.state).toBe("pending");
    expect(stored?.trackingStoppedAtMs).toBeGreaterThanOrEqual(START_MS + 6 * HOUR);
  });

  it("lets two replicas share the schedule without polling one payout twice", async () => {
    const s = setup();
    const payouts = await Promise.all([1, 2, 3, 4, 5].map(() => pendingPayout(s)));
    s.clock.nowMs += 5 * SECOND;
    const [a, b] = [s.tracker(), s.tracker()];
    const [byA, byB] = await Promise.all([a.tick(), b.tick()]);
    expect(byA + byB).toBe(5);
    expect([...s.gateway.polls].sort()).toEqual(payouts.map((p) => p.paymentId).sort());
  });

  it("hands back the payouts it claimed but had not polled yet when it is stopped", async () => {
    const s = setup();
    const payouts = [await pendingPayout(s), await pendingPayout(s)];
    const tracker = s.tracker();
    s.gateway.statusAt = () => {
      void tracker.stop();
      return "pending";
    };
    s.clock.nowMs += 5 * SECOND;
    expect(await tracker.tick()).toBe(1);
    expect(s.gateway.polls).toHaveLength(1);
    const notPolled = payouts.find((p) => p.paymentId !== s.gateway.polls[0]);
    // Due now for any other replica, not hidden behind a 60 s lease.
    expect(await s.stores.tracking.dueAt(notPolled?.id ?? "")).toBe(s.clock.nowMs);
    expect(await tracker.tick()).toBe(0);
    expect(s.gateway.polls).toHaveLength(1);
  });

  describe("resume", () => {
    it("schedules a pending payout that fell out of the schedule, at once", async () => {
      const s = setup();
      const payout = await pendingPayout(s);
      await s.stores.tracking.remove(payout.id);
      await s.tracker().resume();
      expect(await s.stores.tracking.dueAt(payout.id)).toBe(s.clock.nowMs);
    });

    it("leaves a scheduled pending payout where it is", async () => {
      const s = setup();
      const payout = await pendingPayout(s);
      await s.tracker().resume();
      expect(await s.stores.tracking.dueAt(payout.id)).toBe(START_MS + 5 * SECOND);
    });

    it("makes a payout stranded in submitting unknown and asks for attention", async () => {
      const s = setup();
      const stranded = await pendingPayout(s, 5000, {
        state: "submitting",
        paymentId: undefined,
        submittedAtMs: START_MS - 10 * MINUTE,
      });
      await s.tracker().resume();
      const stored = await s.stores.payouts.get(stranded.id);
      expect(stored?.state).toBe("unknown");
      expect(stored?.errorMessage).toMatch(/stopped while the request was being sent/);
      expect(await attentionQueued(s, [stranded.id])).toEqual([
        { payoutId: stranded.id, reason: "stranded" },
      ]);
      expect(s.queued.count).toBe(1);
      expect(s.gateway.polls).toHaveLength(0);
    });

    it("looks for stranded payouts once a minute, or as often as a shorter limit", async () => {
      for (const [limitMs, checkedAfterMs] of [
        [5 * MINUTE, MINUTE],
        [10 * SECOND, 10 * SECOND],
      ] as const) {
        const s = setup();
        const tracker = s.tracker({ submittingLimitMs: limitMs });
        await tracker.resume();
        const stranded = await pendingPayout(s, 5000, {
          state: "submitting",
          paymentId: undefined,
          submittedAtMs: START_MS - 10 * MINUTE,
        });
        s.clock.nowMs = START_MS + checkedAfterMs - 1;
        await tracker.tick();
        expect((await s.stores.payouts.get(stranded.id))?.state).toBe("submitting");
        s.clock.nowMs = START_MS + checkedAfterMs;
        await tracker.tick();
        expect((await s.stores.payouts.get(stranded.id))?.state).toBe("unknown");
      }
    });

    it("leaves a payout that is being submitted right now alone", async () => {
      const s = setup();
      const live = await pendingPayout(s, 5000, {
        state: "submitting",
        paymentId: undefined,
        submittedAtMs: START_MS - 10 * SECOND,
      });
      await s.tracker().resume();
      expect((await s.stores.payouts.get(live.id))?.state).toBe("submitting");
      expect(await attentionQueued(s, [live.id])).toEqual([]);
      expect(s.queued.count).toBe(0);
    });
  });
});
