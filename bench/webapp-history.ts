/**
 * The Mini App's History search over 100,000 payouts (10,000 with --quick) in Redis: by
 * number, by payment id and by staff member, each answered from its index
 * (payouts/dashboard/history.ts), as `GET /app/api/history` runs it. Target (DESIGN.md):
 * p99 under 50 ms. Baseline: one payout read by id (`PayoutStore.get`) in the same run.
 * A search by name has no index and reads the period page by page, bounded by SCAN_LIMIT:
 * its figure is shown without a target.
 */
import type { Payout } from "../src/model/payout.js";
import { historyPage } from "../src/payouts/dashboard/history.js";
import { createRedisStores } from "../src/store/redis.js";
import type { Stores } from "../src/store/types.js";
import type { BenchContext } from "./setup.js";
import { withPrefix } from "./setup.js";
import { percentile, type Row, row } from "./stats.js";

const BENCH = "10 mini app history";
const DAY_MS = 86_400_000;
const STAFF = 20;
const NUMBERS = 20_000;
const ZONE = "Africa/Douala";

function payoutAt(index: number, nowMs: number, count: number): Payout {
  const createdAtMs = nowMs - Math.floor(((count - index) / count) * 60 * DAY_MS);
  const national = 670_000_000 + (index % NUMBERS);
  return {
    id: `bench-${index.toString(36).padStart(6, "0")}-payout`,
    kind: "disbursement",
    state: "success",
    phone: `237${national}`,
    operator: "mtn",
    recipientName: `Recipient ${index % NUMBERS}`,
    amount: 1_000 + (index % 500) * 100,
    fee: 10,
    initiatorId: 5_000 + (index % STAFF),
    chatId: 5_000 + (index % STAFF),
    locale: "en",
    createdAtMs,
    updatedAtMs: createdAtMs,
    expiresAtMs: createdAtMs + 300_000,
    settledAtMs: createdAtMs + 60_000,
    paymentId: `bench-pay-${index}`,
  };
}

async function seed(stores: Stores, count: number, nowMs: number, log: (m: string) => void) {
  const chunk = 1_000;
  for (let from = 0; from < count; from += chunk) {
    const writes: Array<Promise<unknown>> = [];
    for (let index = from; index < Math.min(count, from + chunk); index += 1) {
      writes.push(stores.payouts.create(payoutAt(index, nowMs, count)));
    }
    await Promise.all(writes);
    if ((from / chunk) % 20 === 19) log(`  ${from + chunk} payouts written`);
  }
}

async function timed(runs: number, work: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await work(i);
    samples.push(performance.now() - started);
  }
  return samples;
}

export async function benchWebappHistory(context: BenchContext): Promise<Row[]> {
  const count = context.quick ? 10_000 : 100_000;
  const runs = context.quick ? 100 : 500;
  return withPrefix(context, "webapp-history", async (redis, prefix) => {
    const stores = createRedisStores(redis, { prefix, retentionMs: 90 * DAY_MS });
    const nowMs = Date.now();
    context.log(`  writing ${count.toLocaleString("en")} payouts…`);
    await seed(stores, count, nowMs, context.log);
    await stores.staff.set(1, "admin");
    const deps = { stores, timeZone: ZONE, now: () => nowMs };
    const admin = { userId: 1, role: "admin" as const };
    const pick = (i: number) => (i * 7_919) % count;
    const baseline = await timed(runs, (i) =>
      stores.payouts.get(payoutAt(pick(i), nowMs, count).id),
    );
    const byNumber = await timed(runs, (i) =>
      historyPage(deps, admin, {
        q: `+237 ${payoutAt(pick(i), nowMs, count).phone.slice(3)}`,
        page: 0,
      }),
    );
    const byPaymentId = await timed(runs, (i) =>
      historyPage(deps, admin, { q: `bench-pay-${pick(i)}`, page: 0 }),
    );
    const byStaff = await timed(runs, (i) =>
      historyPage(deps, admin, { q: String(5_000 + (i % STAFF)), page: i % 5 }),
    );
    const byStaffFiltered = await timed(runs, (i) =>
      historyPage(deps, admin, { q: String(5_000 + (i % STAFF)), page: 0, status: "paid" }),
    );
    const byName = await timed(context.quick ? 3 : 5, (i) =>
      historyPage(deps, admin, { q: `Recipient ${pick(i) % NUMBERS}`, page: 0, from: undefined }),
    );
    const all = [...byNumber, ...byPaymentId, ...byStaff];
    const base = percentile(baseline, 99);
    const p99 = percentile(all, 99);
    const line = (figure: string, samples: number[], target: string, met: boolean | null) =>
      row({
        bench: BENCH,
        figure,
        value: percentile(samples, 99),
        unit: "ms",
        baseline: base,
        target,
        met,
      });
    return [
      row({
        bench: BENCH,
        figure: `search p99 over ${count.toLocaleString("en")} payouts (number, payment id, staff)`,
        value: p99,
        unit: "ms",
        baseline: base,
        target: "< 50 ms",
        met: p99 < 50,
        note:
          `${runs} searches of each kind against ${count.toLocaleString("en")} payouts to ` +
          `${NUMBERS.toLocaleString("en")} numbers by ${STAFF} staff over 60 days; baseline: ` +
          "one PayoutStore.get. A staff member's id alone pages their own list; with a filter, " +
          "their newest 300 payouts are filtered.",
      }),
      line("  by number p99", byNumber, "", null),
      line("  by payment id p99", byPaymentId, "", null),
      line("  by staff member p99 (pages of their list)", byStaff, "", null),
      row({
        bench: BENCH,
        figure: "  by staff member and status p99 (their newest 300 read)",
        value: percentile(byStaffFiltered, 99),
        unit: "ms",
        baseline: base,
        target: "",
        met: null,
        note:
          "With a filter, a person's newest 300 payouts are read and filtered: outside the " +
          "target, as the name search.",
      }),
      row({
        bench: BENCH,
        figure: "  by name p99 (no index: the period read, at most 5,000)",
        value: percentile(byName, 99),
        unit: "ms",
        baseline: base,
        target: "",
        met: null,
        note: "A name is found by reading the last 90 days page by page, at most SCAN_LIMIT payouts.",
      }),
    ];
  });
}
