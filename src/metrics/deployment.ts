/**
 * One `/metrics` for a bot serving several merchants (MERCHANTS_FILE). Each merchant's runtime
 * records into a PrometheusMetrics of its own whose every series carries `merchant="<id>"`;
 * a scrape reads every merchant's gauges afresh (each within its own deadline, all at once)
 * and answers one exposition: each metric family once, with every merchant's series under it,
 * and the process's own metrics (CPU, memory, event loop) once for the whole process.
 *
 * Families are merged by prom-client's AggregatorRegistry.aggregate; no two merchants share
 * a label set (the `merchant` label differs), so nothing is summed: each series passes through.
 * A merchant restarted by a reload starts its counters from zero (Prometheus reads that as a
 * reset, as after a restart); one removed leaves the endpoint.
 */
import { AggregatorRegistry, collectDefaultMetrics, Registry } from "prom-client";
import type { MetricsSource } from "../http/metrics-server.js";
import { P, PrometheusMetrics } from "./prometheus.js";

export class DeploymentMetrics implements MetricsSource {
  readonly #process = new Registry();
  readonly #merchants: () => Iterable<PrometheusMetrics>;

  /** `merchants`: the metrics of the merchants running now, asked at every scrape. */
  constructor(merchants: () => Iterable<PrometheusMetrics>) {
    this.#merchants = merchants;
    collectDefaultMetrics({ register: this.#process, prefix: P });
  }

  /** The metrics a merchant's runtime records into: no process metrics, its id on each series. */
  static forMerchant(id: string): PrometheusMetrics {
    return new PrometheusMetrics({ processMetrics: false, labels: { merchant: id } });
  }

  get contentType(): string {
    return this.#process.contentType;
  }

  async scrape(): Promise<string> {
    const snapshots = await Promise.all([
      this.#process.getMetricsAsJSON(),
      ...[...this.#merchants()].map((metrics) => metrics.snapshot()),
    ]);
    // Nothing is to be summed (no two sources share a series): every series passes through,
    // even those prom-client's cluster mode would leave out ("omit", as the start time).
    const passThrough = snapshots.map((metrics) =>
      metrics.map((metric) => ({ ...metric, aggregator: "first" as const })),
    );
    return AggregatorRegistry.aggregate(passThrough).metrics();
  }
}
