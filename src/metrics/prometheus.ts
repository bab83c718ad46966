/**
 * The metrics on a prom-client Registry of our own (never the global default, so that two
 * apps in one process, as in the tests, keep theirs apart). Counters and histograms are
 * recorded where things happen (see Metrics); the gauges of what waits (payouts by state,
 * the outbox, the events, batch rows, rate-limit slots, the durability plan) are read once
 * per scrape, in one go and under a deadline, from indexes that already exist: a handful
 * of O(1) Redis reads, never a scan.
 */
import {
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from "prom-client";
import type { Metrics, PaymentAttempt, PayoutMove } from "./metrics.js";

/** What the gauges show, as read at a scrape (see gauges.ts). */
export interface GaugeReading {
  /** Payouts now in each tracked state (pending, unknown, awaiting_approval…). */
  payoutsInState: Readonly<Record<string, number>>;
  outbox: { size: number; oldestDueAtMs: number | null };
  /** Pending payouts on the status-poll schedule. */
  tracking: number;
  /** Signed events waiting; undefined when events are off. */
  events: { waiting: number; oldestWaitingMs: number | undefined } | undefined;
  /** Rows of the active batches still to check and still to pay. */
  batchRowsLeft: { checking: number; paying: number };
  /** Payment API rate-limit slots taken in the window now, and the limit. */
  rateLimit: { used: number; limit: number } | undefined;
  /** The durable-writes plan (REDIS_DURABILITY): "replica", "aof", "none", "lost" or "off". */
  durability: DurabilityState;
}

export const DURABILITY_STATES = ["replica", "aof", "none", "lost", "off"] as const;
export type DurabilityState = (typeof DURABILITY_STATES)[number];

export interface PrometheusMetricsOptions {
  /** How long a scrape waits for the gauges before answering without them. Default 2 000. */
  gaugeDeadlineMs?: number;
  /** Node's own metrics (CPU, memory, event loop, GC). Default true. */
  processMetrics?: boolean;
  /** Labels on every series (one merchant's metrics in a deployment: `{ merchant: id }`). */
  labels?: Readonly<Record<string, string>>;
  now?: () => number;
}

export const P = "payout_bot_";

/** A labelled child per label value, made once: prom-client hashes the labels per call. */
class Children<T> {
  readonly #made = new Map<string, T>();
  readonly #make: (key: string) => T;

  constructor(make: (key: string) => T) {
    this.#make = make;
  }

  of(key: string): T {
    let child = this.#made.get(key);
    if (child === undefined) {
      child = this.#make(key);
      this.#made.set(key, child);
    }
    return child;
  }
}

export class PrometheusMetrics implements Metrics {
  readonly enabled = true;
  readonly registry = new Registry();
  readonly #options: PrometheusMetricsOptions;
  readonly #now: () => number;
  #readGauges: (() => Promise<GaugeReading>) | undefined;

  readonly #moves = new Counter({
    name: `${P}payout_moves_total`,
    help: "Payout state moves made, by event, state moved into, kind and operator",
    labelNames: ["event", "to", "kind", "operator"] as const,
    registers: [this.registry],
  });
  readonly #paid = new Counter({
    name: `${P}paid_xaf_total`,
    help: "Money of the payouts that reached success, in XAF, by kind and operator",
    labelNames: ["kind", "operator"] as const,
    registers: [this.registry],
  });
  readonly #apiRequests = new Counter({
    name: `${P}payment_api_requests_total`,
    help: "Payment API attempts by operation and HTTP status (or transport failure)",
    labelNames: ["operation", "status"] as const,
    registers: [this.registry],
  });
  readonly #apiDuration = new Histogram({
    name: `${P}payment_api_request_duration_seconds`,
    help: "Payment API attempt duration, send to last byte of the answer",
    labelNames: ["operation"] as const,
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
    registers: [this.registry],
  });
  readonly #apiRetries = new Counter({
    name: `${P}payment_api_retries_total`,
    help: "Payment API attempts that failed and were tried again",
    labelNames: ["operation"] as const,
    registers: [this.registry],
  });
  readonly #telegramErrors = new Counter({
    name: `${P}telegram_api_errors_total`,
    help: "Bot API calls that failed, by method and error code (or timeout, network)",
    labelNames: ["method", "code"] as const,
    registers: [this.registry],
  });
  readonly #redis = new Histogram({
    name: `${P}redis_command_duration_seconds`,
    help: "Redis commands as the client saw them, from send to answer, by command",
    labelNames: ["command"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
    registers: [this.registry],
  });
  readonly #loopLag = new Histogram({
    name: `${P}loop_lag_seconds`,
    help: "How late each background loop's round started after it was due",
    labelNames: ["loop"] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });
  readonly #loopFailures = new Counter({
    name: `${P}loop_round_failures_total`,
    help: "Background loop rounds that failed",
    labelNames: ["loop"] as const,
    registers: [this.registry],
  });
  readonly #inState = new Gauge({
    name: `${P}payouts_in_state`,
    help: "Payouts now in each tracked state (pending, unknown, awaiting_approval…)",
    labelNames: ["state"] as const,
    registers: [this.registry],
  });
  readonly #outbox = new Gauge({
    name: `${P}outbox_backlog`,
    help: "Notices in the outbox (due now or later)",
    registers: [this.registry],
  });
  readonly #outboxAge = new Gauge({
    name: `${P}outbox_oldest_overdue_seconds`,
    help: "How long the most overdue notice has been due (0: none overdue)",
    registers: [this.registry],
  });
  readonly #tracking = new Gauge({
    name: `${P}tracking_backlog`,
    help: "Pending payouts on the status-poll schedule",
    registers: [this.registry],
  });
  readonly #events = new Gauge({
    name: `${P}events_backlog`,
    help: "Signed events waiting to be delivered",
    registers: [this.registry],
  });
  readonly #eventsAge = new Gauge({
    name: `${P}events_oldest_age_seconds`,
    help: "Age of the oldest signed event waiting (0: none)",
    registers: [this.registry],
  });
  readonly #batchRows = new Gauge({
    name: `${P}batch_rows_left`,
    help: "Rows of the active batches still to check or to pay",
    labelNames: ["phase"] as const,
    registers: [this.registry],
  });
  readonly #slotsUsed = new Gauge({
    name: `${P}payment_api_rate_limit_used`,
    help: "Payment API rate-limit slots taken in the current window, across replicas",
    registers: [this.registry],
  });
  readonly #slotsLimit = new Gauge({
    name: `${P}payment_api_rate_limit`,
    help: "Payment API requests allowed per window",
    registers: [this.registry],
  });
  readonly #durability = new Gauge({
    name: `${P}redis_durability`,
    help: "The durable-writes plan now: 1 for its state (replica, aof, none, lost, off)",
    labelNames: ["plan"] as const,
    registers: [this.registry],
  });
  readonly #gaugesRead = new Gauge({
    name: `${P}gauges_read_ok`,
    help: "1 when this scrape read the backlog gauges in time, 0 when they are stale",
    registers: [this.registry],
  });

  readonly #moveChildren = new Children((key) => {
    const [event = "", to = "", kind = "", operator = ""] = key.split("|");
    return this.#moves.labels(event, to, kind, operator);
  });
  readonly #apiChildren = new Children((key) => {
    const [operation = "", status = ""] = key.split("|");
    return this.#apiRequests.labels(operation, status);
  });
  readonly #apiDurationChildren = new Children((operation) => this.#apiDuration.labels(operation));
  readonly #redisChildren = new Children((command) => this.#redis.labels(command));

  constructor(options: PrometheusMetricsOptions = {}) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    if (options.labels) this.registry.setDefaultLabels({ ...options.labels });
    if (options.processMetrics !== false) {
      collectDefaultMetrics({ register: this.registry, prefix: P });
    }
  }

  /** Reads the gauges with `read` at every scrape from now on (set once the stores exist). */
  readGaugesWith(read: () => Promise<GaugeReading>): void {
    this.#readGauges = read;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  payoutMoved(move: PayoutMove): void {
    this.#moveChildren.of(`${move.event}|${move.to}|${move.kind}|${move.operator}`).inc();
    if (move.to === "success") this.#paid.labels(move.kind, move.operator).inc(move.amountXaf);
  }

  paymentAttempt(attempt: PaymentAttempt): void {
    this.#apiChildren.of(`${attempt.operation}|${attempt.status}`).inc();
    this.#apiDurationChildren.of(attempt.operation).observe(attempt.durationSeconds);
  }

  paymentRetry(operation: string): void {
    this.#apiRetries.labels(operation).inc();
  }

  telegramError(method: string, code: string): void {
    this.#telegramErrors.labels(method, code).inc();
  }

  redisCommand(command: string, durationSeconds: number): void {
    this.#redisChildren.of(command).observe(durationSeconds);
  }

  loopRound(loop: string, lagSeconds: number, failed: boolean): void {
    this.#loopLag.labels(loop).observe(lagSeconds);
    if (failed) this.#loopFailures.labels(loop).inc();
  }

  /** The text a scrape answers: the gauges read afresh (within the deadline), then all. */
  async scrape(): Promise<string> {
    await this.#refresh();
    return this.registry.metrics();
  }

  /** The same as `scrape`, as prom-client's JSON (to be merged with other merchants'). */
  async snapshot(): Promise<MetricObjectWithValues<MetricValue<string>>[]> {
    await this.#refresh();
    return this.registry.getMetricsAsJSON();
  }

  async #refresh(): Promise<void> {
    const read = this.#readGauges;
    if (read) {
      const reading = await withDeadline(read(), this.#options.gaugeDeadlineMs ?? 2_000);
      if (reading) this.#show(reading);
      this.#gaugesRead.set(reading ? 1 : 0);
    }
  }

  #show(reading: GaugeReading): void {
    const nowMs = this.#now();
    for (const [state, count] of Object.entries(reading.payoutsInState)) {
      this.#inState.labels(state).set(count);
    }
    this.#outbox.set(reading.outbox.size);
    const due = reading.outbox.oldestDueAtMs;
    this.#outboxAge.set(due === null ? 0 : Math.max(0, (nowMs - due) / 1000));
    this.#tracking.set(reading.tracking);
    if (reading.events) {
      this.#events.set(reading.events.waiting);
      const oldest = reading.events.oldestWaitingMs;
      this.#eventsAge.set(oldest === undefined ? 0 : Math.max(0, (nowMs - oldest) / 1000));
    }
    this.#batchRows.labels("checking").set(reading.batchRowsLeft.checking);
    this.#batchRows.labels("paying").set(reading.batchRowsLeft.paying);
    if (reading.rateLimit) {
      this.#slotsUsed.set(reading.rateLimit.used);
      this.#slotsLimit.set(reading.rateLimit.limit);
    }
    for (const plan of DURABILITY_STATES) {
      this.#durability.labels(plan).set(plan === reading.durability ? 1 : 0);
    }
  }
}

/** The value, or undefined when it fails or takes longer than `deadlineMs`. */
async function withDeadline<T>(work: Promise<T>, deadlineMs: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), deadlineMs);
  });
  try {
    return await Promise.race([work.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
