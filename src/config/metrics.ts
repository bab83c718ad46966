/**
 * The metrics' variables (read by config/index.ts).
 *
 * - METRICS_ENABLED: `true` serves `GET /metrics` on the main HTTP server (HTTP_HOST,
 *   HTTP_PORT); `false` (the default) does not.
 * - METRICS_PORT: serves `/metrics` on a server of its own on this port instead (0: any free
 *   port), bound to METRICS_HOST; the main server then never answers `/metrics`. Setting it
 *   turns metrics on by itself.
 * - METRICS_HOST: where that server listens; default 127.0.0.1 (loopback: a Prometheus on
 *   the same host or a sidecar), so metrics never face the internet unless asked.
 * `/metrics` never asks for the Mini App's Telegram sign-in: it carries no personal data.
 */
import { z } from "zod";
import { optionalIntInRange, optionalText } from "./env-values.js";

export interface MetricsConfig {
  /** Where `/metrics` is served; undefined: metrics are off. */
  serve: { on: "main" } | { on: "own"; host: string; port: number } | undefined;
}

const metricsEnvSchema = z.object({
  METRICS_ENABLED: optionalText()
    .transform((value) => value ?? "false")
    .pipe(z.enum(["true", "false"], { message: 'must be "true" or "false"' })),
  METRICS_PORT: optionalIntInRange(0, 65535),
  METRICS_HOST: optionalText().transform((value) => value ?? "127.0.0.1"),
});

/** METRICS_ENABLED, METRICS_PORT and METRICS_HOST; every problem is pushed to `problems`. */
export function metricsConfig(env: NodeJS.ProcessEnv, problems: string[]): MetricsConfig {
  const parsed = metricsEnvSchema.safeParse(env);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      problems.push(`${issue.path.join(".")}: ${issue.message}`);
    return { serve: undefined };
  }
  const { METRICS_ENABLED, METRICS_PORT, METRICS_HOST } = parsed.data;
  if (METRICS_PORT !== undefined) {
    return { serve: { on: "own", host: METRICS_HOST, port: METRICS_PORT } };
  }
  return { serve: METRICS_ENABLED === "true" ? { on: "main" } : undefined };
}
