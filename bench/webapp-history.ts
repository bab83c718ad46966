/**
 * The Mini App's History search over 100,000 payouts (10,000 with --quick) in Redis, as
 * `GET /app/api/history` runs it (payouts/dashboard/history.ts): by number, payment id,
 * staff member, staff member with a status filter, and recipient's name, each answered from
 * its index. Target (DESIGN.md): p99 under 50 ms. Baseline: one payout read by id
 * (`PayoutStore.get`) in the same run. Also the Overview (the last 30 days by operator
 * from the day totals, and what needs a person), target p99 under 50 ms, and what the
 * search indexes cost in Redis memory per payout (MEMORY USAGE of their keys).
 */
import type { Redis } from "ioredis";
import type { Payout } from "../src/model/payout.js";
import { historyPage } from "../src/payouts/dashboard/history.js";
import { overviewFor } from "../src/payouts/dashboard/overview.js";
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

/** Every `NEEDS_PERSON_EVERY`th payout waits for a person: pending, unknown or approval. */
const NEEDS_PERSON_EVERY = 100;

function stateAt(index: number): Payout["state"] {
  if (index % NEEDS_PERSON_EVERY === 0) return "pending";
  if (index % NEEDS_PERSON_EVERY === 25) return "unknown";
  if (index % NEEDS_PERSON_EVERY === 50) return "awaiting_approval";
  return index % 10 === 7 ? "failed" : "success";
}

function payoutAt(index: number, nowMs: number, count: number): Payout {
  const createdAtMs = nowMs - Math.floor(((count - index) / count) * 60 * DAY_MS);
  const national = 670_000_000 + (index % NUMBERS);
  const state = stateAt(index);
  const settled = state === "success" || state === "failed";
  return {
    id: `bench-${index.toString(36).padStart(6, "0")}-payout`,
    kind: "disbursement",
    state,
    phone: `237${national}`,
    operator: index % 3 === 0 ? "orange" : "mtn",
    recipientName: `Recipient ${index % NUMBERS}`,
    amount: 1_000 + (index % 500) * 100,
    fee: 10,
    initiatorId: 5_000 + (index % STAFF),
    chatId: 5_000 + (index % STAFF),
    locale: "en",
    createdAtMs,
    updatedAtMs: createdAtMs,
    expiresAtMs: createdAtMs + 300_000,
    ...(settled ? { settledAtMs: createdAtMs + 60_000 } : {}),
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

/** Bytes Redis holds for the keys matching `pattern` (MEMORY USAGE of each, summed). */
async function bytesOf(redis: Redis, pattern: string): Promise<number> {
  let total = 0;
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1_000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.memory("USAGE", key, "SAMPLES", "0");
    for (const [, bytes] of (await pipeline.exec()) ?? []) total += Number(bytes ?? 0);
  } while (cursor !== "0");
  return total;
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
      historyPage(deps, admin, {
        q: String(5_000 + (i % STAFF)),
        page: i % 5,
        status: "paid",
        from: undefined,
      }),
    );
    const vias = new Map<string, number>();
    const byName = await timed(runs, async (i) => {
      const page = await historyPage(deps, admin, {
        q: `recipient ${pick(i) % NUMBERS}`,
        page: 0,
      });
      vias.set(page.via, (vias.get(page.via) ?? 0) + 1);
    });
    const overviewRuns = runs;
    const overview = await timed(overviewRuns, () =>
      overviewFor({ stores, timeZone: ZONE, stuckAfterMs: 3_600_000, now: () => nowMs }, admin),
    );
    const [wordBytes, statusBytes, createdBytes] = await Promise.all([
      bytesOf(redis, `${prefix}word*`),
      bytesOf(redis, `${prefix}status:*`),
      bytesOf(redis, `${prefix}payouts`),
    ]);
    const perPayout = (bytes: number) => Math.round(bytes / count);
    const all = [...byNumber, ...byPaymentId, ...byStaff, ...byStaffFiltered, ...byName];
    const base = percentile(baseline, 99);
    const p99 = percentile(all, 99);
    const line = (figure: string, samples: number[], note?: string) =>
      row({
        bench: BENCH,
        figure,
        value: percentile(samples, 99),
        unit: "ms",
        baseline: base,
        target: "",
        met: null,
        ...(note === undefined ? {} : { note }),
      });
    const bytesRow = (figure: string, bytes: number, note: string) =>
      row({
        bench: BENCH,
        figure,
        value: perPayout(bytes),
        unit: "B",
        baseline: null,
        target: "",
        met: null,
        note,
      });
    return [
      row({
        bench: BENCH,
        figure: `search p99 over ${count.toLocaleString("en")} payouts (every kind below)`,
        value: p99,
        unit: "ms",
        baseline: base,
        target: "< 50 ms",
        met: p99 < 50,
        note:
          `${runs} searches of each kind against ${count.toLocaleString("en")} payouts to ` +
          `${NUMBERS.toLocaleString("en")} numbers by ${STAFF} staff over 60 days; baseline: ` +
          "one PayoutStore.get.",
      }),
      line("  by number p99", byNumber),
      line("  by payment id p99", byPaymentId),
      line("  by staff member p99 (pages of their list)", byStaff),
      line("  by staff member and status p99 (pages of their status index)", byStaffFiltered),
      line(
        "  by name p99 (index of words)",
        byName,
        `"recipient N" for N taken across the 20,000 names: a word of 1 to 5 digits widens ` +
          `to every name's number it begins (answered: ${[...vias]
            .map(([via, n]) => `${via} ${n}`)
            .join(", ")}).`,
      ),
      row({
        bench: BENCH,
        figure: `overview p99 (30 days, ${overviewRuns} runs)`,
        value: percentile(overview, 99),
        unit: "ms",
        baseline: base,
        target: "< 50 ms",
        met: percentile(overview, 99) < 50,
        note:
          "Overview: the last 30 days from the day totals kept as payouts settle (30 small " +
          "hashes, one pipeline), plus the state sets for what needs a person (3 payouts in " +
          `${NEEDS_PERSON_EVERY} pending, unknown or awaiting approval: ` +
          `${Math.round((3 * count) / NEEDS_PERSON_EVERY).toLocaleString("en")}). ` +
          "One in 10 of the others failed.",
      }),
      bytesRow(
        "  Redis memory per payout: index of words",
        wordBytes,
        "MEMORY USAGE of word:*, words, words:seen, divided by the payouts; each name here " +
          "has 2 words (one shared by all).",
      ),
      bytesRow(
        "  Redis memory per payout: status group indexes",
        statusBytes,
        "MEMORY USAGE of status:* (everyone's and each staff member's), per payout.",
      ),
      bytesRow(
        "  Redis memory per payout: everyone's creation index (for comparison)",
        createdBytes,
        "MEMORY USAGE of the `payouts` sorted set, per payout.",
      ),
    ];
  });
}
