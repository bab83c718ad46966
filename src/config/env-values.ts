/**
 * Reading one environment variable (config.ts, redis-config.ts): unset and blank mean the
 * same, numbers come with their range in the message, keys are PEM text or a file path.
 */
import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";

/** The trimmed value, or undefined when unset or blank (what `optionalText` gives). */
export function textOf(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

export function optionalText() {
  return z.string().optional().transform(textOf);
}

/** A whole number from `min` to `max`; `fallback` when unset or blank. */
export function intInRange(fallback: number, min: number, max: number) {
  return z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return fallback;
      const parsed = Number(value.trim());
      if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
        ctx.addIssue({
          code: "custom",
          message: `must be a whole number from ${min} to ${max} (got "${value}")`,
        });
        return z.NEVER;
      }
      return parsed;
    });
}

/** A whole number from `min` to `max`, or undefined when unset or blank (a feature off). */
export function optionalIntInRange(min: number, max: number) {
  return z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return undefined;
      const parsed = Number(value.trim());
      if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
        ctx.addIssue({
          code: "custom",
          message: `must be a whole number from ${min} to ${max}, or unset (got "${value}")`,
        });
        return z.NEVER;
      }
      return parsed;
    });
}

/** An http(s) URL or unset; the message shows `example`. */
export function httpUrl(what: string) {
  return optionalText().refine(
    (value) => {
      if (value === undefined) return true;
      try {
        const url = new URL(value);
        return url.protocol === "http:" || url.protocol === "https:";
      } catch {
        return false;
      }
    },
    { message: `must be an http(s) URL, e.g. ${what}` },
  );
}

/** A key variable holds PEM text or a path to a PEM file. */
export function readPem(
  name: string,
  value: string | undefined,
  kind: "PUBLIC" | "PRIVATE",
  problems: string[],
) {
  if (value === undefined) return undefined;
  let pem = value.replace(/\\n/g, "\n");
  if (!pem.includes("-----BEGIN")) {
    if (!existsSync(value)) {
      problems.push(`${name}: is neither PEM text nor the path of a readable file ("${value}")`);
      return undefined;
    }
    try {
      pem = readFileSync(value, "utf8");
    } catch {
      // A directory or a file we may not read: a problem to report, not a crash.
      problems.push(`${name}: is neither PEM text nor the path of a readable file ("${value}")`);
      return undefined;
    }
  }
  if (!pem.includes(`${kind} KEY-----`)) {
    problems.push(
      `${name}: expected a PEM ${kind.toLowerCase()} key (-----BEGIN ${kind} KEY-----)`,
    );
    return undefined;
  }
  return pem;
}

/**
 * True for a host name that only ever reaches this machine (127.0.0.1, localhost, [::1],
 * exactly: not a LAN address, not `127.0.0.1.example.com`): the one place plain http is
 * accepted for a URL the bot calls or hands to Telegram.
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]";
}
