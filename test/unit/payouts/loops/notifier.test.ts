import { describe, expect, it } from "vitest";
import { noticeKey } from "../../../../src/model/notice.js";
import type { Payout } from "../../../../src/model/payout.js";
import {
  type Delivery,
  DeliveryError,
  type Messenger,
  Notifier,
} from "../../../../src/payouts/loops/notifier.js";
import { createMemoryStores } from "../../../../src/store/memory.js";
import type { Stores } from "../../../../src/store/types.js";
import { type FakeClock, fakeClock } from "../../../support/clock.js";
import { type CapturedLine, capturedLogger } from "../../../support/logs.js";
import { acceptedPayout, settledKey } from "../../../support/payouts.js";

const START_MS = Date.UTC(2025, 0, 6, 9, 0, 0);

/** A Messenger that records what it was asked and fails as scripted. */
class FakeMessenger implements Messenger {
  readonly settled: string[] = [];
  readonly attention: string[] = [];
  /** Digests and availability alerts, as `digest:day` and `operator:operation:status`. */
  readonly reports: string[] = [];
  /** Thrown by the next deliveries of a final status, in order. */
  readonly failures: unknown[] = [];

  async deliver(delivery: Delivery): Promise<void> {
    if (delivery.kind === "attention") {
      this.attention.push(`${delivery.reason}:${delivery.payout.id}`);
      return;
    }
    if (delivery.kind === "digest") {
      this.reports.push(`digest:${delivery.day}`);
      return;
    }
    if (delivery.kind === "availability") {
      const { operator, operation, status } = delivery.alert;
      this.reports.push(`${operator}:${operation}:${status}`);
      return;
    }
    if ("batch" in delivery) {
      this.reports.push(`${delivery.kind}:${delivery.batch.id}`);
      return;
    }
    if (delivery.kind === "events_disabled") {
      this.reports.push(`events_disabled:${delivery.atMs}`);
      return;
    }
    if (delivery.kind === "standing_lost") {
      this.reports.push(`${delivery.kind}:${delivery.change.userId}`);
      return;
    }
    if (delivery.kind === "schedule") {
      this.reports.push(`schedule:${delivery.what}:${delivery.schedule.id}`);
      return;
    }
    if (
      delivery.kind === "pin_locked" ||
      delivery.kind === "pin_reset" ||
      delivery.kind === "pin_renewed" ||
      delivery.kind === "pin_wrong_tries"
    ) {
      this.reports.push(`${delivery.kind}:${delivery.userId}`);
      return;
    }
    this.settled.push(delivery.payout.id);
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
  }
}

interface Setup {
  clock: FakeClock;
  stores: Stores;
  messenger: FakeMessenger;
  notifier: Notifier;
  lines: CapturedLine[];
}

function setup(options: { maxAttempts?: number; retryBaseMs?: number; tickMs?: number } = {}) {
  const clock = fakeClock(START_MS);
  const stores = createMemoryStores({ retentionMs: 86_400_000, now: clock.now });
  const messenger = new FakeMessenger();
  const { logger, lines } = capturedLogger();
  const notifier = new Notifier({ stores, messenger, logger, now: clock.now, ...options });
  return { clock, stores, messenger, notifier, lines } satisfies Setup;
}

/** A payout that just reached `state`: its notification is in the outbox. */
async function settledPayout(
  s: Setup,
  event: "settle_success" | "settle_failed" | "settle_canceled" = "settle_success",
): Promise<Payout> {
  const now = s.clock.nowMs;
  const payout = acceptedPayout(now);
  await s.stores.payouts.create(payout);
  const moved = await s.stores.payouts.transition(payout.id, event, { settledAtMs: now });
  if (!moved.ok) throw new Error("the payout could not be settled");
  return moved.payout;
}

function telegram429(retryAfterMs: number): DeliveryError {
  return new DeliveryError("Telegram refused the message: 429", {
    permanent: false,
    retryAfterMs,
  });
}

describe("Notifier", () => {
  it("tells the payer once and empties the outbox", async () => {
    const s = setup();
    const payout = await settledPayout(s);
    expect(await s.notifier.drain()).toBe(1);
    expect(s.messenger.settled).toEqual([payout.id]);
    expect((await s.stores.payouts.get(payout.id))?.notifiedAtMs).toBe(START_MS);
    expect(await s.stores.outbox.size()).toBe(0);
    expect(await s.notifier.drain()).toBe(0);
    expect(s.messenger.settled).toHaveLength(1);
  });

  it("notifies every final status: success, failed and canceled", async () => {
    const s = setup();
    const payouts = [
      await settledPayout(s, "settle_success"),
      await settledPayout(s, "settle_failed"),
      await settledPayout(s, "settle_canceled"),
    ];
    await s.notifier.drain();
    expect([...s.messenger.settled].sort()).toEqual(payouts.map((p) => p.id).sort());
  });

  it("does not tell a payer twice when a notice is queued again after it was sent", async () => {
    const s = setup();
    const payout = await settledPayout(s);
    await s.notifier.drain();
    await s.stores.outbox.schedule(settledKey(payout.id), s.clock.nowMs);
    await s.notifier.drain();
    expect(s.messenger.settled).toEqual([payout.id]);
    expect(await s.stores.outbox.size()).toBe(0);
  });

  it("reads a bare payout id, as versions before typed notices queued it, as its final status", async () => {
    const s = setup();
    const payout = await settledPayout(s);
    await s.stores.outbox.remove(settledKey(payout.id));
    await s.stores.outbox.schedule(payout.id, s.clock.nowMs);
    await s.notifier.drain();
    expect(s.messenger.settled).toEqual([payout.id]);
    expect(await s.stores.outbox.size()).toBe(0);
  });

  it("delivers an attention notice each time it is queued, and never marks the payer told", async () => {
    const s = setup();
    const payout = acceptedPayout(s.clock.nowMs);
    await s.stores.payouts.create(payout);
    const key = noticeKey({ kind: "attention", payoutId: payout.id, reason: "stuck" });
    await s.stores.outbox.schedule(key, s.clock.nowMs);
    await s.notifier.drain();
    expect(s.messenger.attention).toEqual([`stuck:${payout.id}`]);
    expect((await s.stores.payouts.get(payout.id))?.notifiedAtMs).toBeUndefined();
    expect(await s.stores.outbox.size()).toBe(0);
  });

  it("delivers a day's digest once, however often it is asked for, and each availability change once", async () => {
    const s = setup();
    expect(await s.stores.reports.queueDigestOnce("2025-01-06", s.clock.nowMs)).toBe(true);
    expect(await s.stores.reports.queueDigestOnce("2025-01-06", s.clock.nowMs)).toBe(false);
    const down = { operator: "mtn", operation: "disbursement", status: "SUSPENDED" } as const;
    await s.stores.reports.observeAvailability({ ...down, status: "OPERATIONAL" }, s.clock.nowMs);
    await s.stores.reports.observeAvailability(down, s.clock.nowMs);
    await s.stores.reports.observeAvailability(down, s.clock.nowMs);
    expect(await s.notifier.drain()).toBe(2);
    expect(await s.notifier.drain()).toBe(0);
    expect(s.messenger.reports.sort()).toEqual(["digest:2025-01-06", "mtn:disbursement:SUSPENDED"]);
    expect(await s.stores.outbox.size()).toBe(0);
  });

  it("drops an outbox entry that names no notice", async () => {
    const s = setup();
    await s.stores.outbox.schedule("attention:nonsense:abc", s.clock.nowMs);
    await s.notifier.drain();
    expect([...s.messenger.settled, ...s.messenger.attention]).toEqual([]);
    expect(await s.stores.outbox.size()).toBe(0);
  });

  it("drops an outbox entry whose payout is gone", async () => {
    const s = setup();
    await s.stores.outbox.schedule("vanished-payout", s.clock.nowMs);
    await s.notifier.drain();
    expect(s.messenger.settled).toHaveLength(0);
    expect(await s.stores.outbox.size()).toBe(0);
  });

  it("retries a refused notice no sooner than Telegram's retry_after, then delivers it once", async () => {
    const s = setup({ retryBaseMs: 2000 });
    const payout = await settledPayout(s);
    s.messenger.failures.push(telegram429(30_000));
    await s.notifier.drain();
    expect(await s.stores.outbox.dueAt(settledKey(payout.id))).toBe(START_MS + 30_000);
    expect((await s.stores.payouts.get(payout.id))?.notifiedAtMs).toBeUndefined();

    s.clock.nowMs = START_MS + 29_999;
    await s.notifier.drain();
    expect(s.messenger.settled).toHaveLength(1);

    s.clock.nowMs = START_MS + 30_000;
    await s.notifier.drain();
    expect(s.messenger.settled).toEqual([payout.id, payout.id]);
    expect((await s.stores.payouts.get(payout.id))?.notifiedAtMs).toBe(START_MS + 30_000);
    expect(await s.stores.outbox.size()).toBe(0);
  });

  it("doubles the wait after each failure, up to 10 minutes", async () => {
    const s = setup({ retryBaseMs: 1000, maxAttempts: 100 });
    const payout = await settledPayout(s);
    const waits: number[] = [];
    for (let attempt = 0; attempt < 12; attempt++) {
      s.messenger.failures.push(new Error("socket hang up"));
      await s.notifier.drain();
      const due = await s.stores.outbox.dueAt(settledKey(payout.id));
      if (due === null) throw new Error("the notice was dropped");
      waits.push(due - s.clock.nowMs);
      s.clock.nowMs = due;
    }
    expect(waits.slice(0, 6)).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000]);
    expect(Math.max(...waits)).toBe(600_000);
    expect(waits.at(-1)).toBe(600_000);
  });

  it("keeps the backoff when Telegram's retry_after is shorter", async () => {
    const s = setup({ retryBaseMs: 2000 });
    const payout = await settledPayout(s);
    s.messenger.failures.push(telegram429(1000));
    await s.notifier.drain();
    expect(await s.stores.outbox.dueAt(settledKey(payout.id))).toBe(START_MS + 2000);
  });

  it("gives up at once, and logs it, when the user blocked the bot", async () => {
    const s = setup();
    const payout = await settledPayout(s);
    s.messenger.failures.push(
      new DeliveryError(
        "Telegram refused the message: 403 Forbidden: bot was blocked by the user",
        {
          permanent: true,
        },
      ),
    );
    await s.notifier.drain();
    expect(s.messenger.settled).toEqual([payout.id]);
    expect(await s.stores.outbox.size()).toBe(0);
    expect((await s.stores.payouts.get(payout.id))?.notifiedAtMs).toBeUndefined();
    const dropped = s.lines.find((line) => line.msg === "notification dropped");
    expect(dropped?.payoutId).toBe(payout.id);
    expect(dropped?.level).toBe(50);

    s.clock.nowMs += 3_600_000;
    await s.notifier.drain();
    expect(s.messenger.settled).toHaveLength(1);
  });

  it("gives up after maxAttempts failures", async () => {
    const s = setup({ maxAttempts: 3, retryBaseMs: 1000 });
    const payout = await settledPayout(s);
    s.messenger.failures.push(new Error("boom"), new Error("boom"), new Error("boom"));
    for (let round = 0; round < 5; round++) {
      await s.notifier.drain();
      s.clock.nowMs += 3_600_000;
    }
    expect(s.messenger.settled).toEqual([payout.id, payout.id, payout.id]);
    expect(await s.stores.outbox.size()).toBe(0);
    expect(s.lines.some((line) => line.msg === "notification dropped")).toBe(true);
  });

  it("a failure of one notice does not hold back the others", async () => {
    const s = setup();
    const first = await settledPayout(s);
    const second = await settledPayout(s);
    s.messenger.failures.push(new Error("flaky network"));
    await s.notifier.drain();
    expect(s.messenger.settled).toEqual([first.id, second.id]);
    expect((await s.stores.payouts.get(second.id))?.notifiedAtMs).toBe(START_MS);
    expect(await s.stores.outbox.dueAt(settledKey(first.id))).toBe(START_MS + 2000);
  });

  it("delivers at once when woken, without waiting for its next tick", async () => {
    const s = setup({ tickMs: 3_600_000 });
    s.clock.nowMs = Date.now();
    s.notifier.start();
    try {
      // Let the first (empty) round pass; the next tick is an hour away.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const payout = await settledPayout(s);
      s.notifier.wake();
      await expect.poll(() => s.messenger.settled, { timeout: 2000 }).toEqual([payout.id]);
    } finally {
      await s.notifier.stop();
    }
  });

  it("sends nothing more once stopped", async () => {
    const s = setup({ tickMs: 10 });
    s.notifier.start();
    await s.notifier.stop();
    await settledPayout(s);
    s.notifier.wake();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(s.messenger.settled).toHaveLength(0);
    expect(await s.stores.outbox.size()).toBe(1);
  });
});
