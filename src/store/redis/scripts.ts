/**
 * The one loader of the Redis stores' Lua scripts. Each script is a file in `lua/` (a header
 * naming its KEYS and ARGV); a line `--!include <name>.lua` is replaced by that fragment of
 * `lua/includes/`, once per script however often it is asked for. Every file is read and its
 * SHA1 computed once, when this module loads, so a missing or unreadable script stops the
 * process at start rather than at a payout. No value is spliced into a source: values travel
 * as arguments. Scripts run by SHA (EVALSHA); a NOSCRIPT answer (a restarted or failed-over
 * Redis, SCRIPT FLUSH) sends the source (EVAL). The reply is `unknown` on purpose: each
 * caller validates it with zod, as with any Redis read.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import type { RedisClient } from "./connection.js";

/** Every script, by the name of its file in `lua/` (without `.lua`). */
export const SCRIPT_NAMES = [
  "availability-observe",
  "batch-move",
  "batch-tally",
  "digest-once",
  "callback-admit",
  "due-claim",
  "event-endpoint-disable",
  "event-enqueue",
  "event-retry",
  "event-settle",
  "lease-acquire",
  "lease-release",
  "lease-renew",
  "outbox-claim",
  "payout-by-payment",
  "payout-create",
  "payout-latest-repeat",
  "payout-mark-sending",
  "payout-transition",
  "payout-update",
  "payouts-by-phone",
  "payouts-by-status",
  "payouts-index-search",
  "payouts-search-backfill",
  "payouts-by-words",
  "payouts-count-settled",
  "payouts-oldest-in-state",
  "payouts-totals-backfill",
  "pin-begin-try",
  "pin-finish-try",
  "pin-set",
  "pin-reset",
  "rate-limit-take",
  "recipient-write",
  "schedule-move",
  "schedule-run",
  "staff-set",
  "throttle-take",
] as const;

export type ScriptName = (typeof SCRIPT_NAMES)[number];

export interface LuaScript {
  readonly name: string;
  /** The source with its includes expanded: what EVAL sends. */
  readonly source: string;
  readonly sha1: string;
}

/**
 * Where the `.lua` files are: beside this module (`src/store/redis/lua/` when run from the
 * source, `dist/src/store/redis/lua/` once built: the build copies them there).
 */
export const LUA_DIR = new URL("./lua/", import.meta.url);

const INCLUDE_LINE = /^--!include ([a-z0-9-]+\.lua)[ \t]*$/gm;

/**
 * `source` with every `--!include name.lua` line replaced by that fragment (read with
 * `readInclude`), its own includes expanded the same way. A fragment already included is
 * left out the second time; an include cycle or a missing fragment throws.
 */
export function expandIncludes(
  source: string,
  readInclude: (name: string) => string,
  included: Set<string> = new Set(),
  chain: readonly string[] = [],
): string {
  return source.replace(INCLUDE_LINE, (_line, name: string) => {
    if (chain.includes(name)) throw new Error(`Lua include cycle: ${[...chain, name].join(" → ")}`);
    if (included.has(name)) return `-- (${name} included above)`;
    included.add(name);
    return expandIncludes(readInclude(name), readInclude, included, [...chain, name]).trimEnd();
  });
}

/** A script from its expanded source, with its SHA1. */
export function luaScript(name: string, source: string): LuaScript {
  return { name, source, sha1: createHash("sha1").update(source).digest("hex") };
}

/**
 * Reads every script of `dir`, includes expanded. Throws when a named script is missing or
 * a `.lua` file there is not named in SCRIPT_NAMES (a script nobody can run is a mistake).
 */
export function loadScripts(dir: URL = LUA_DIR): Record<ScriptName, LuaScript> {
  const files = readdirSync(dir).filter((file) => file.endsWith(".lua"));
  const unknown = files.filter(
    (file) => !(SCRIPT_NAMES as readonly string[]).includes(file.slice(0, -4)),
  );
  if (unknown.length > 0) throw new Error(`Lua scripts not in SCRIPT_NAMES: ${unknown.join(", ")}`);
  const readInclude = (name: string) => readFileSync(new URL(`includes/${name}`, dir), "utf8");
  const scripts = {} as Record<ScriptName, LuaScript>;
  for (const name of SCRIPT_NAMES) {
    const source = expandIncludes(readFileSync(new URL(`${name}.lua`, dir), "utf8"), readInclude);
    scripts[name] = luaScript(name, source);
  }
  return scripts;
}

/** Every script, read once when this module loads. */
export const SCRIPTS: Readonly<Record<ScriptName, LuaScript>> = loadScripts();

/** Redis answered NOSCRIPT: the script did not run (nor write), its source may be sent. */
export function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("NOSCRIPT");
}

/**
 * Runs `script` with `keys` and `args`. A NOSCRIPT answer means the script did not run,
 * so sending its source instead cannot apply anything twice.
 */
export async function runScript(
  redis: RedisClient,
  script: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  // A script given no key runs on any node of a cluster, and fails on those that do not
  // own its merchant's slot: every script is given at least one key of its merchant.
  if (keys.length === 0) throw new Error(`Lua script ${script.name} called without a key`);
  try {
    return await redis.evalsha(script.sha1, keys.length, ...keys, ...args);
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return redis.eval(script.source, keys.length, ...keys, ...args);
  }
}
