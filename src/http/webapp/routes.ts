/**
 * The shape of one Mini App API route. Each file in this folder that serves `/app/api/…`
 * exports a function answering `WebAppRoute[]`; `api.ts` checks identity, the role's
 * capability and the person's rate limit before any route runs, so a route only reads its
 * input and calls a domain step.
 */
import type { Capability } from "../../payouts/policy.js";
import type { WebAppUser } from "./auth.js";

export interface WebAppCall {
  user: WebAppUser;
  /** The `:name` segments of the route's path. */
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** The JSON body of a POST (undefined for GET); routes check it with zod. */
  body: unknown;
}

export type WebAppReply =
  | { status: number; json: unknown }
  /** A file download (CSV exports). */
  | { status: 200; file: { name: string; type: string; text: string } };

export interface WebAppRoute {
  method: "GET" | "POST";
  /** Under `/app/api/`, with `:name` segments: `payouts/:id`. */
  path: string;
  /** What the caller's role must allow (403 otherwise), asked of payouts/policy.ts. */
  capability: Capability;
  handle(call: WebAppCall): Promise<WebAppReply>;
}

/** `{ error }` with a status: the one error shape every route answers. */
export function failure(status: number, error: string): WebAppReply {
  return { status, json: { error } };
}

/** Matches `path` (no leading slash) against a route's pattern; the params, or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < want.length; index += 1) {
    const part = want[index] ?? "";
    const value = got[index] ?? "";
    if (part.startsWith(":")) {
      if (value === "") return null;
      try {
        params[part.slice(1)] = decodeURIComponent(value);
      } catch {
        return null;
      }
    } else if (part !== value) {
      return null;
    }
  }
  return params;
}
