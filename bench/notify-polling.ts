/**
 * Benchmark 4b: with webhooks off, how many GET /payments/{id} a payout costs and how
 * late its final status is seen, for payouts that settle 10 s, 1 min and 10 min after
 * submission. The real PayoutTracker and payout steps run against the sandbox and Redis
 * with a fake clock that steps by the tracker's own tick, so ten minutes take a second;
 * the sandbox settles each payment (forceStatus) when the fake clock reaches its time.
 * Baseline: the same schedule computed from `nextPollDelayMs` without jitter.
 */

import type { Payout } from "../src/model/payout.js";
import { PaymentClient } from "../src/payments/client.js";
import { nextPollDelayMs, PayoutTracker } from "../src/payouts/loops/tracker.js";
import { createPayouts } from "../src/payouts/payouts.js";
import type { PaymentGateway } from "../src/payouts/types.js";
import { type SandboxHandle, startSandbox } from "../src/sandbox/index.js";
import { createRedisStores } from "../src/store/redis.js";
import type { Stores } from "../src/store/types.js";
import { type BenchContext, withPrefix } from "./setup.js";
import { mean, type Row, row } from "./stats.js";

const BENCH = "4b notify, polling";
/** STATUS_POLL_INTERVAL_MS's default, and the tracker's defaults. */
const BASE_INTERVAL_MS = 5000;
const BACKOFF_FACTOR = 1.6;
const MAX_INTERVAL_MS = 15 * 60_000;
/** The tracker's default tick for this base: a quarter of it, at most 1 s. */
const TICK_MS = Math.min(1000, Math.max(20, Math.floor(BASE_INTERVAL_MS / 4)));
const SETTLE_AFTER_MS = [10_000, 60_000, 600_000] as const;
const TARGET_GETS = 10;
/** The fake clock stops here whatever happens (the cap interval past the last settle time). */
const SIMULATION_LIMIT_MS = 600_000 + 2 * MAX_INTERVAL_MS;

interface Expected {
  polls: number;
  delayMs: number;
  intervalMs: number;
}

/** The schedule without jitter: polls up to the first one at or after `settleAfterMs`. */
function expectedPolling(settleAfterMs: number): Expected {
  let dueMs = BASE_INTERVAL_MS;
  let previousMs = 0;
  for (let polls = 1; ; polls++) {
    const atMs = Math.ceil(dueMs / TICK_MS) * TICK_MS;
    if (atMs >= settleAfterMs) {
      return { polls, delayMs: atMs - settleAfterMs, intervalMs: atMs - previousMs };
    }
    previousMs = atMs;
    dueMs =
      atMs + nextPollDelayMs(polls, BASE_INTERVAL_MS, BACKOFF_FACTOR, MAX_INTERVAL_MS, () => 0.5);
  }
}

interface Tracked {
  payout: Payout;
  paymentId: string;
  settleAfterMs: number;
  forced: boolean;
  /** Fake times of its GET /payments/{id}. */
  polls: number[];
}

function pendingPayout(id: string, paymentId: string, atMs: number, amount: number): Payout {
  return {
    id,
    kind: "disbursement",
    state: "pending",
    phone: "237670000001",
    operator: "mtn",
    recipientName: "Bench Payee",
    amount,
    initiatorId: 4001,
    chatId: 4001,
    locale: "en",
    createdAtMs: atMs,
    updatedAtMs: atMs,
    expiresAtMs: atMs + 300_000,
    submittedAtMs: atMs,
    paymentId,
    apiStatus: "pending",
  };
}

/** Pending payouts with real sandbox payments, as Submission.submit leaves them. */
async function seed(
  client: PaymentClient,
  stores: Stores,
  startMs: number,
  perSettleTime: number,
): Promise<Map<string, Tracked>> {
  const byPaymentId = new Map<string, Tracked>();
  for (const settleAfterMs of SETTLE_AFTER_MS) {
    for (let n = 0; n < perSettleTime; n++) {
      const payment = await client.disburse({ amount: 1000 + n, phoneNumber: "237670000001" });
      const payout = pendingPayout(`bench-${settleAfterMs}-${n}`, payment.id, startMs, 1000 + n);
      await stores.payouts.create(payout);
      await stores.tracking.schedule(payout.id, startMs + BASE_INTERVAL_MS);
      byPaymentId.set(payment.id, {
        ...{ payout, paymentId: payment.id, settleAfterMs },
        ...{ forced: false, polls: [] },
      });
    }
  }
  return byPaymentId;
}

/** The real tracker and service on a clock that only moves when this says so. */
function fakeClockTracker(
  client: PaymentClient,
  stores: Stores,
  byPaymentId: Map<string, Tracked>,
) {
  const clock = { nowMs: Date.now() };
  const now = () => clock.nowMs;
  const gateway: PaymentGateway = {
    collect: (request) => client.collect(request),
    disburse: (request) => client.disburse(request),
    getAvailability: () => client.getAvailability(),
    getUserInfo: (phone) => client.getUserInfo(phone),
    getPayment: (id) => {
      byPaymentId.get(id)?.polls.push(clock.nowMs);
      return client.getPayment(id);
    },
  };
  const payouts = createPayouts({
    ...{ gateway, stores, now, confirmationTtlSeconds: 300 },
    statusPollIntervalMs: BASE_INTERVAL_MS,
  });
  const tracker = new PayoutTracker({
    ...{ settlement: payouts.settlement, stores, now, pollIntervalMs: BASE_INTERVAL_MS },
    tickMs: TICK_MS,
    ...{ stuckAfterMs: 86_400_000, stopAfterMs: 90 * 86_400_000, submittingLimitMs: 300_000 },
  });
  return { clock, tracker };
}

async function simulate(
  sandbox: SandboxHandle,
  stores: Stores,
  perSettleTime: number,
): Promise<{ tracked: Tracked[]; startMs: number }> {
  const client = new PaymentClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
  const byPaymentId = new Map<string, Tracked>();
  const { clock, tracker } = fakeClockTracker(client, stores, byPaymentId);
  const startMs = clock.nowMs;
  try {
    for (const [id, item] of await seed(client, stores, startMs, perSettleTime)) {
      byPaymentId.set(id, item);
    }
    const tracked = [...byPaymentId.values()];
    while (clock.nowMs - startMs < SIMULATION_LIMIT_MS && (await stores.tracking.size()) > 0) {
      clock.nowMs += TICK_MS;
      for (const item of tracked) {
        if (item.forced || clock.nowMs - startMs < item.settleAfterMs) continue;
        sandbox.forceStatus(item.paymentId, "success");
        item.forced = true;
      }
      await tracker.tick();
    }
    return { tracked, startMs };
  } finally {
    await client.close();
  }
}

async function resultRows(
  sandbox: SandboxHandle,
  stores: Stores,
  tracked: readonly Tracked[],
  startMs: number,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const settleAfterMs of SETTLE_AFTER_MS) {
    const group = tracked.filter((item) => item.settleAfterMs === settleAfterMs);
    const gets = group.map((item) =>
      sandbox.countRequests({ method: "GET", path: `/payments/${item.paymentId}` }),
    );
    const delaysMs: number[] = [];
    let withinInterval = true;
    let withinBase = true;
    for (const item of group) {
      const stored = await stores.payouts.get(item.payout.id);
      const settledAtMs = stored?.state === "success" ? stored.settledAtMs : undefined;
      if (settledAtMs === undefined) throw new Error(`payout ${item.payout.id} was never settled`);
      const delayMs = settledAtMs - (startMs + settleAfterMs);
      const last = item.polls.at(-1) ?? settledAtMs;
      const before = item.polls.at(-2) ?? startMs;
      delaysMs.push(delayMs);
      if (delayMs > last - before) withinInterval = false;
      if (delayMs > BASE_INTERVAL_MS) withinBase = false;
    }
    const expected = expectedPolling(settleAfterMs);
    const label =
      settleAfterMs >= 60_000 ? `${settleAfterMs / 60_000} min` : `${settleAfterMs / 1000} s`;
    const maxGets = Math.max(...gets);
    rows.push(
      row({
        bench: BENCH,
        figure: `GETs per payout settling after ${label} (max ${maxGets}, n=${group.length})`,
        value: mean(gets),
        unit: "",
        baseline: expected.polls,
        target: `≤ ${TARGET_GETS}`,
        met: maxGets <= TARGET_GETS,
      }),
      row({
        bench: BENCH,
        figure: `status seen after settling, ${label} (max ${(Math.max(...delaysMs) / 1000).toFixed(1)} s)`,
        value: mean(delaysMs) / 1000,
        unit: "s",
        baseline: expected.delayMs / 1000,
        target: "≤ 1 poll interval",
        met: withinInterval,
        note:
          `Mean delay between the sandbox settling and the tracker seeing it (fake clock). ` +
          `"Poll interval" is the backoff interval in effect then: ${(expected.intervalMs / 1000).toFixed(0)} s ` +
          `without jitter for ${label} (base STATUS_POLL_INTERVAL_MS = ${BASE_INTERVAL_MS / 1000} s, ` +
          `×${BACKOFF_FACTOR} per poll, capped at ${MAX_INTERVAL_MS / 60_000} min, ±10% jitter, ` +
          `${TICK_MS} ms tick). Against the base interval itself (${BASE_INTERVAL_MS / 1000} s) ` +
          `this case is ${withinBase ? "also within" : "NOT within"} one interval. ` +
          "Baseline: the schedule without jitter.",
      }),
    );
  }
  return rows;
}

/** Runs benchmark 4b and returns its rows. */
export async function benchPolling(context: BenchContext): Promise<Row[]> {
  const perSettleTime = context.quick ? 3 : 10;
  const sandbox = await startSandbox({
    rateLimitPerMinute: 0,
    settleDelayMs: 86_400_000,
    signResponses: false,
  });
  try {
    // The stores run on withPrefix's connection, which it closes once the keys are gone.
    return await withPrefix(context, "poll", async (redis, prefix) => {
      const stores = createRedisStores(redis, { prefix, retentionMs: 3_600_000 });
      const { tracked, startMs } = await simulate(sandbox, stores, perSettleTime);
      context.log(`  polled ${tracked.length} payouts to a final status (fake clock)`);
      return await resultRows(sandbox, stores, tracked, startMs);
    });
  } finally {
    await sandbox.close();
  }
}
