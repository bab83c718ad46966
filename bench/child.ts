/**
 * Benchmark parts that must not share the harness's event loop (the bot under test, a
 * sandbox, rate-limit workers) run as child processes: `node --import tsx bench/<file>.ts`,
 * or the transpiled file with plain node (build.ts), talking to the parent over the IPC
 * channel. Messages are checked with zod both ways.
 */
import { type ChildProcess, fork } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { z } from "zod";
import { compiledRoot } from "./build.js";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
const live = new Set<ChildProcess>();

// A crash of the harness must not leave children running.
process.once("exit", () => {
  for (const child of live) child.kill();
});

export interface ForkOptions {
  /** Added to the parent's environment. */
  env?: Record<string, string>;
  /** Node flags before the script, e.g. `--expose-gc`. */
  nodeArgs?: string[];
  /** Run the transpiled JavaScript (build.ts) with plain node instead of tsx. */
  compiled?: boolean;
}

/** Starts `bench/<script>` (a file in this folder) with an IPC channel. */
export function forkBench(script: string, options: ForkOptions = {}): ChildProcess {
  const path = options.compiled
    ? join(compiledRoot(), "bench", script.replace(/\.ts$/, ".js"))
    : fileURLToPath(new URL(script, import.meta.url));
  const loader = options.compiled ? [] : ["--import", "tsx"];
  // BENCH_CPU_PROF=<dir>: every benchmark child writes a V8 CPU profile there on exit.
  const profile = process.env.BENCH_CPU_PROF
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const child = fork(path, [], {
    cwd: REPO_ROOT,
    execArgv: [...profile, ...(options.nodeArgs ?? []), ...loader],
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  live.add(child);
  child.once("exit", () => live.delete(child));
  return child;
}

/**
 * The first message from `child` that `schema` accepts. Rejects when the child exits
 * first, reports `{type: "error"}`, or nothing comes within `timeoutMs`.
 */
export function nextMessage<T>(
  child: ChildProcess,
  schema: z.ZodType<T>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const finish = () => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
    };
    const onMessage = (message: unknown) => {
      const parsed = schema.safeParse(message);
      if (parsed.success) {
        finish();
        resolve(parsed.data);
        return;
      }
      if (isErrorMessage(message)) {
        finish();
        reject(new Error(`${what}: the child reported: ${message.message}`));
      }
    };
    const onExit = (code: number | null) => {
      finish();
      reject(new Error(`${what}: the child exited (code ${code}) first`));
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`${what}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}

function isErrorMessage(message: unknown): message is { type: "error"; message: string } {
  return (
    typeof message === "object" &&
    message !== null &&
    Reflect.get(message, "type") === "error" &&
    typeof Reflect.get(message, "message") === "string"
  );
}

/** Asks the child to stop (`{type: "stop"}`), and kills it if it is still there after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (child.connected) child.send({ type: "stop" });
  const timer = setTimeout(() => child.kill(), graceMs);
  await exited;
  clearTimeout(timer);
}
