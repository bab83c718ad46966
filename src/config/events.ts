/**
 * The events' variables (read by config/index.ts): where signed events go and the secret
 * that signs them.
 *
 * - EVENTS_URL: https, or plain http to 127.0.0.1 / localhost only (a receiver on the same
 *   machine).
 * - EVENTS_SECRET: the Standard Webhooks form, `whsec_` and the base64 of 24 to 64 random
 *   bytes (e.g. `whsec_$(openssl rand -base64 32)`).
 * Both unset: events are off. One without the other, or a bad value, stops the start. The
 * secret's value is never part of a message.
 */
import { isLoopbackHost, textOf } from "./env-values.js";

export interface EventsConfig {
  url: string;
  /** The secret's key bytes (decoded from `whsec_…`). */
  key: Buffer;
}

const SECRET_PREFIX = "whsec_";
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "EVENTS_URL: is not a URL; e.g. https://erp.example.com/webhooks/payouts";
  }
  if (parsed.protocol === "https:") return undefined;
  const loopback = isLoopbackHost(parsed.hostname);
  if (parsed.protocol === "http:" && loopback) return undefined;
  return "EVENTS_URL: must start with https:// (plain http only to 127.0.0.1 or localhost)";
}

/** The secret's key bytes, or undefined when it is not `whsec_` + base64 of 24-64 bytes. */
export function decodeEventsSecret(secret: string): Buffer | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return undefined;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) return undefined;
  const key = Buffer.from(encoded, "base64");
  return key.length >= 24 && key.length <= 64 ? key : undefined;
}

/** EVENTS_URL and EVENTS_SECRET; every problem is pushed to `problems`. Undefined: off. */
export function eventsConfig(env: NodeJS.ProcessEnv, problems: string[]): EventsConfig | undefined {
  const url = textOf(env.EVENTS_URL);
  const secret = textOf(env.EVENTS_SECRET);
  if (url === undefined && secret === undefined) return undefined;
  const found: string[] = [];
  if (url === undefined) found.push("EVENTS_URL: required with EVENTS_SECRET (or unset both)");
  if (secret === undefined) {
    found.push(
      "EVENTS_SECRET: required with EVENTS_URL; e.g. whsec_ followed by `openssl rand -base64 32`",
    );
  }
  const problem = url === undefined ? undefined : urlProblem(url);
  if (problem) found.push(problem);
  const key = secret === undefined ? undefined : decodeEventsSecret(secret);
  if (secret !== undefined && key === undefined) {
    found.push(
      "EVENTS_SECRET: must be whsec_ followed by the base64 of 24 to 64 random bytes, e.g. whsec_ and `openssl rand -base64 32`",
    );
  }
  problems.push(...found);
  return found.length === 0 && url !== undefined && key !== undefined ? { url, key } : undefined;
}
