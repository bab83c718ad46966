/**
 * `GET /metrics` for Prometheus: on the main server (METRICS_ENABLED) or on a server of its
 * own (METRICS_PORT, loopback by default) that answers nothing else. Never behind the Mini
 * App's sign-in: what it shows carries no personal data (src/metrics/).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Logger } from "../logger.js";

/** What serves the metrics' text (PrometheusMetrics). */
export interface MetricsSource {
  readonly contentType: string;
  scrape(): Promise<string>;
}

export const METRICS_PATH = "/metrics";

/** Answers a request for `/metrics`: the text on GET or HEAD, 405 otherwise. */
export async function answerMetrics(
  request: IncomingMessage,
  response: ServerResponse,
  source: MetricsSource,
): Promise<void> {
  const method = request.method ?? "GET";
  if (method !== "GET" && method !== "HEAD") {
    response.writeHead(405, { allow: "GET, HEAD" }).end();
    return;
  }
  const text = await source.scrape();
  response.writeHead(200, {
    "content-type": source.contentType,
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  response.end(method === "HEAD" ? undefined : text);
}

export interface MetricsServerHandle {
  server: Server;
  /** e.g. http://127.0.0.1:9464 */
  url: string;
  close(): Promise<void>;
}

/** A server on `host`:`port` answering `/metrics` and 404 to everything else. */
export async function startMetricsServer(options: {
  host: string;
  port: number;
  source: MetricsSource;
  logger: Logger;
}): Promise<MetricsServerHandle> {
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path !== METRICS_PATH) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    answerMetrics(request, response, options.source).catch((error: unknown) => {
      options.logger.error({ err: error }, "metrics scrape failed");
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string")
    throw new Error("the metrics server has no TCP address");
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
