/**
 * One plain HTTP request with a deadline, for the checks that only need to know a URL
 * answers, and how: the Mini App's page, the Telegram webhook, the events receiver, the
 * Payment API's clock. No redirect is followed, and the body is read and dropped.
 */
import { request } from "undici";
import { reasonOf } from "./report.js";

/** How long a probe may take, connection to last byte. */
export const PROBE_TIMEOUT_MS = 5000;

export type ProbeAnswer =
  | {
      answered: true;
      status: number;
      /** The `Date` header, when the server sent one. */
      date: string | undefined;
      /** When the answer's headers arrived, and when the request left (ms since 1970). */
      sentAtMs: number;
      receivedAtMs: number;
    }
  | { answered: false; reason: string };

export interface ProbeRequest {
  method?: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** What `url` answers to one request, or why nothing answered. Never throws. */
export async function probe(url: string, options: ProbeRequest = {}): Promise<ProbeAnswer> {
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const sentAtMs = Date.now();
  try {
    const response = await request(url, {
      method: options.method ?? "GET",
      headers: { "user-agent": "payout-bot-doctor", ...options.headers },
      ...(options.body === undefined ? {} : { body: options.body }),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const receivedAtMs = Date.now();
    await response.body.dump();
    const date = response.headers.date;
    return {
      answered: true,
      status: response.statusCode,
      date: Array.isArray(date) ? date[0] : date,
      sentAtMs,
      receivedAtMs,
    };
  } catch (error) {
    const reason =
      error instanceof Error && error.name === "TimeoutError"
        ? `no answer within ${timeoutMs} ms`
        : reasonOf(error);
    return { answered: false, reason };
  }
}

/** A URL as printed: its origin and path, never credentials or a query (which may hold a token). */
export function shownUrl(url: string): string {
  if (!URL.canParse(url)) return "(not a URL)";
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
