import { describe, expect, it } from "vitest";
import type { GaugeReading } from "../../../src/metrics/prometheus.js";
import { PrometheusMetrics } from "../../../src/metrics/prometheus.js";

const READING: GaugeReading = {
  payoutsInState: { pending: 3, unknown: 1 },
  outbox: { size: 2, oldestDueAtMs: 1_000 },
  tracking: 3,
  events: undefined,
  batchRowsLeft: { checking: 0, paying: 40 },
  rateLimit: { used: 12, limit: 300 },
  durability: "aof",
};

describe("PrometheusMetrics", () => {
  it("shows the gauges as read at the scrape", async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false, now: () => 31_000 });
    metrics.readGaugesWith(async () => READING);
    const text = await metrics.scrape();
    expect(text).toContain('payout_bot_payouts_in_state{state="unknown"} 1');
    expect(text).toContain("payout_bot_outbox_oldest_overdue_seconds 30");
    expect(text).toContain('payout_bot_batch_rows_left{phase="paying"} 40');
    expect(text).toContain("payout_bot_payment_api_rate_limit_used 12");
    expect(text).toContain('payout_bot_redis_durability{plan="aof"} 1');
    expect(text).toContain('payout_bot_redis_durability{plan="lost"} 0');
    expect(text).toContain("payout_bot_gauges_read_ok 1");
  });

  it("answers without waiting past the deadline for gauges that never come, and says so", async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false, gaugeDeadlineMs: 20 });
    metrics.readGaugesWith(async () => READING);
    await metrics.scrape();
    metrics.readGaugesWith(() => new Promise<GaugeReading>(() => {}));
    const text = await metrics.scrape();
    expect(text).toContain("payout_bot_gauges_read_ok 0");
    // The last values read stay: stale, and flagged as such above.
    expect(text).toContain('payout_bot_payouts_in_state{state="unknown"} 1');
  });

  it("says the gauges are stale when reading them fails", async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    metrics.readGaugesWith(() => Promise.reject(new Error("Redis is down")));
    expect(await metrics.scrape()).toContain("payout_bot_gauges_read_ok 0");
  });

  it("adds the amount of a move into success to the money paid, and of no other move", async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const move = { kind: "disbursement", operator: "orange", amountXaf: 2500 } as const;
    metrics.payoutMoved({ ...move, event: "accepted", to: "pending" });
    metrics.payoutMoved({ ...move, event: "settle_success", to: "success" });
    metrics.payoutMoved({ ...move, event: "settle_failed", to: "failed" });
    const text = await metrics.scrape();
    expect(text).toContain('payout_bot_paid_xaf_total{kind="disbursement",operator="orange"} 2500');
    expect(text).toContain(
      'payout_bot_payout_moves_total{event="settle_failed",to="failed",kind="disbursement",operator="orange"} 1',
    );
  });
});
