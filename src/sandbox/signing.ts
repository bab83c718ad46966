/**
 * The sandbox's side of the RS256 `X-Sig` signatures (spec section 5), written from the
 * canonical form documented in docs/assumptions.md ("Signatures"), not from the
 * client's code:
 *
 *     `${timestampMs}\n${METHOD}\n${pathAndQuery}\n${body}`, RSASSA-PKCS1-v1_5 / SHA-256,
 *     base64 in `X-Sig`, the timestamp (Unix ms) in `X-Sig-Timestamp`.
 *
 * The sandbox signs its answers and callbacks with its private key, and checks signed
 * requests (the merchant's "request encryption") with the merchant's public key, refusing
 * a timestamp more than five minutes from its own clock.
 */
import { createPublicKey, type KeyObject, sign, verify } from "node:crypto";

const REQUEST_FRESHNESS_MS = 5 * 60_000;

function signedText(timestampMs: number, method: string, pathAndQuery: string, body: string) {
  return Buffer.from(`${timestampMs}\n${method.toUpperCase()}\n${pathAndQuery}\n${body}`);
}

/** The `X-Sig` and `X-Sig-Timestamp` headers for a message. */
export function signatureHeaders(
  privateKey: KeyObject,
  message: { method: string; pathAndQuery: string; body: string; timestampMs: number },
): Record<string, string> {
  const text = signedText(message.timestampMs, message.method, message.pathAndQuery, message.body);
  return {
    "x-sig": sign("sha256", text, privateKey).toString("base64"),
    "x-sig-timestamp": String(message.timestampMs),
  };
}

export type RequestSignatureProblem = "missing" | "bad-timestamp" | "stale" | "mismatch";

/** What is wrong with a signed request, or null when it is good. */
export function requestSignatureProblem(
  publicKey: KeyObject,
  request: {
    signature: string | undefined;
    timestamp: string | undefined;
    method: string;
    pathAndQuery: string;
    body: string;
    nowMs: number;
  },
): RequestSignatureProblem | null {
  if (!request.signature || !request.timestamp) return "missing";
  if (!/^\d{1,16}$/.test(request.timestamp)) return "bad-timestamp";
  const timestampMs = Number(request.timestamp);
  if (Math.abs(request.nowMs - timestampMs) > REQUEST_FRESHNESS_MS) return "stale";
  const text = signedText(timestampMs, request.method, request.pathAndQuery, request.body);
  try {
    return verify("sha256", text, publicKey, Buffer.from(request.signature, "base64"))
      ? null
      : "mismatch";
  } catch {
    return "mismatch";
  }
}

export function publicKeyOf(pem: string): KeyObject {
  return createPublicKey(pem);
}

/** A header node:http gives as a string or a list: its first value. */
export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
