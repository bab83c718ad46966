/**
 * Lua scripts run by SHA (EVALSHA), loaded on first use (EVAL on NOSCRIPT). The reply is
 * `unknown` on purpose: each caller validates it with zod, as with any Redis read.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

export interface LuaScript {
  readonly source: string;
  readonly sha1: string;
}

/** A script and its SHA1, computed once, for `runScript`. */
export function luaScript(source: string): LuaScript {
  return { source, sha1: createHash("sha1").update(source).digest("hex") };
}

/** Redis answered NOSCRIPT: the script did not run (nor write), its source may be sent. */
export function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("NOSCRIPT");
}

/**
 * Runs `script` with `keys` and `args`. A NOSCRIPT answer means the script did not run,
 * so sending its source instead cannot apply anything twice.
 */
export async function runScript(
  redis: Redis,
  script: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  try {
    return await redis.evalsha(script.sha1, keys.length, ...keys, ...args);
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return redis.eval(script.source, keys.length, ...keys, ...args);
  }
}
