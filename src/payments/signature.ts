/**
 * RS256 `X-Sig` signatures (spec section 5). The spec says responses are signed "over the
 * request body, a timestamp and the URL" but not how those are put together, so this is
 * OUR ASSUMPTION, kept in this one function so it is easy to change:
 *
 *     canonical = `${timestamp}\n${METHOD}\n${pathAndQuery}\n${body}`
 *
 * - `timestamp` is Unix time in milliseconds, sent in the `X-Sig-Timestamp` header;
 * - `METHOD` is upper case (`POST`); for a response it is the method of the request;
 * - `pathAndQuery` is the URL's path and query (no scheme or host, which proxies change);
 * - `body` is the exact bytes sent (empty for GET), as UTF-8 text;
 * - the signature is RSASSA-PKCS1-v1_5 with SHA-256, base64-encoded, in `X-Sig`.
 *
 * Verification of a callback also refuses a timestamp more than `maxSkewMs` (5 minutes) from
 * now, so a captured callback cannot be replayed days later. An answer on our own connection
 * is not checked for freshness (`maxSkewMs: null`): it answers the request we just sent, and
 * a service clock that is off must not turn a payment that was made into "unknown".
 */
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";

export const SIGNATURE_HEADER = "x-sig";
export const TIMESTAMP_HEADER = "x-sig-timestamp";
export const DEFAULT_MAX_SKEW_MS = 5 * 60_000;

export interface SignedParts {
  timestampMs: number;
  method: string;
  /** Path and query of the URL, e.g. `/payments/abc?x=1`. */
  pathAndQuery: string;
  body: string;
}

export function canonicalString(parts: SignedParts): string {
  return `${parts.timestampMs}\n${parts.method.toUpperCase()}\n${parts.pathAndQuery}\n${parts.body}`;
}

/** The path and query of a URL string or object. */
export function pathAndQueryOf(url: string | URL): string {
  const parsed = typeof url === "string" ? new URL(url, "http://localhost") : url;
  return `${parsed.pathname}${parsed.search}`;
}

export function loadPrivateKey(pem: string): KeyObject {
  return createPrivateKey(pem);
}

export function loadPublicKey(pem: string): KeyObject {
  return createPublicKey(pem);
}

/** Returns the headers to add: `X-Sig` and `X-Sig-Timestamp`. */
export function signParts(
  privateKey: KeyObject,
  parts: Omit<SignedParts, "timestampMs"> & { timestampMs?: number },
): Record<string, string> {
  const timestampMs = parts.timestampMs ?? Date.now();
  const signature = sign(
    "sha256",
    Buffer.from(canonicalString({ ...parts, timestampMs })),
    privateKey,
  );
  return {
    [SIGNATURE_HEADER]: signature.toString("base64"),
    [TIMESTAMP_HEADER]: String(timestampMs),
  };
}

export type SignatureProblem = "missing" | "bad-timestamp" | "stale" | "mismatch";

export interface VerifyInput {
  publicKey: KeyObject;
  signature: string | undefined;
  timestamp: string | undefined;
  method: string;
  pathAndQuery: string;
  body: string;
  nowMs?: number;
  /** Largest accepted distance from now; `null` skips the freshness check. Default 5 min. */
  maxSkewMs?: number | null;
}

/** `null` when the signature is good, else what is wrong with it. */
export function verifyParts(input: VerifyInput): SignatureProblem | null {
  if (!input.signature || !input.timestamp) return "missing";
  if (!/^\d{1,16}$/.test(input.timestamp)) return "bad-timestamp";
  const timestampMs = Number(input.timestamp);
  const maxSkewMs = input.maxSkewMs === undefined ? DEFAULT_MAX_SKEW_MS : input.maxSkewMs;
  if (maxSkewMs !== null && Math.abs((input.nowMs ?? Date.now()) - timestampMs) > maxSkewMs) {
    return "stale";
  }
  const canonical = canonicalString({
    timestampMs,
    method: input.method,
    pathAndQuery: input.pathAndQuery,
    body: input.body,
  });
  let good = false;
  try {
    good = verify(
      "sha256",
      Buffer.from(canonical),
      input.publicKey,
      Buffer.from(input.signature, "base64"),
    );
  } catch {
    good = false;
  }
  return good ? null : "mismatch";
}

/** First value of a header that node:http or undici may give as a string or an array. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
