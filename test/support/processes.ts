/**
 * Real processes for end-to-end tests: the bot started as in production
 * (`node --import tsx src/main.ts start`, configured by its environment) and private
 * `redis-server`s a test may stop and start again (the world they talk to is in world.ts).
 * Everything started here is tracked: `stopAllProcesses()` (called by `World.close`) kills
 * whatever a failed test left running.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import { freePort, redisAnswers } from "./net.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** tsx and the entry point by absolute location, so a process may run in another directory. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const MAIN = join(ROOT, "src/main.ts");

/** One pino line of the bot's stdout (level label, message, and whatever else it logged). */
export const LogLineSchema = z.looseObject({ level: z.string(), msg: z.string() });
export type LogLine = z.infer<typeof LogLineSchema>;

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What is still running, each with how to stop it. */
const running = new Set<{ stop: () => Promise<unknown> }>();

/** Kills every bot process and stops every private Redis still running. */
export async function stopAllProcesses(): Promise<void> {
  await Promise.allSettled([...running].map((item) => item.stop()));
}

/** Checks every 25 ms until `check` is true; rejects naming `what` after `timeoutMs`. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

function parseLogLine(text: string): LogLine | undefined {
  try {
    const parsed = LogLineSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A `node src/main.ts …` child, its stdout parsed as pino JSON lines. */
export class MainProcess {
  readonly child: ChildProcess;
  readonly logs: LogLine[] = [];
  readonly exited: Promise<ExitInfo>;
  #stderr = "";
  #partial = "";
  #exit: ExitInfo | undefined;

  /** `cwd` is the working directory (default the repository), where `start` looks for `.env`. */
  constructor(args: string[], env: Record<string, string>, options: { cwd?: string } = {}) {
    this.child = spawn(process.execPath, ["--import", TSX_LOADER, MAIN, ...args], {
      cwd: options.cwd ?? ROOT,
      // Only what the test chose: nothing of the developer's environment leaks in.
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child.stdout?.setEncoding("utf8").on("data", (chunk: string) => this.#onStdout(chunk));
    this.child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      this.#stderr += chunk;
    });
    const tracked = { stop: () => this.kill() };
    running.add(tracked);
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.#exit = { code, signal };
        running.delete(tracked);
        resolve(this.#exit);
      });
    });
  }

  get stderr(): string {
    return this.#stderr;
  }

  /** How it exited, or undefined while it runs. */
  get exitInfo(): ExitInfo | undefined {
    return this.#exit;
  }

  /** The first log line (already logged or to come) that matches; rejects on exit or timeout. */
  async waitForLog(predicate: (line: LogLine) => boolean, timeoutMs = 15_000): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.logs.find(predicate);
      if (found) return found;
      if (this.#exit || Date.now() > deadline) {
        const why = this.#exit ? "the process exited" : `no such log line within ${timeoutMs} ms`;
        throw new Error(`${why}\n${this.describe()}`);
      }
      await sleep(25);
    }
  }

  hasLog(predicate: (line: LogLine) => boolean): boolean {
    return this.logs.some(predicate);
  }

  /** Waits for the exit; past `timeoutMs` kills the process and rejects. */
  async waitForExit(timeoutMs = 15_000): Promise<ExitInfo> {
    const late = sleep(timeoutMs, "late" as const, { ref: false });
    const outcome = await Promise.race([this.exited, late]);
    if (outcome !== "late") return outcome;
    this.child.kill("SIGKILL");
    throw new Error(`the process did not exit within ${timeoutMs} ms\n${this.describe()}`);
  }

  /** Sends `signal` (default SIGKILL) and waits for the exit. */
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<ExitInfo> {
    if (this.#exit) return this.#exit;
    this.child.kill(signal);
    return this.waitForExit();
  }

  /** The last log lines and stderr, for failure messages. */
  describe(): string {
    const tail = this.logs.slice(-15).map((line) => `  ${JSON.stringify(line)}`);
    return [`pid ${this.child.pid} logs:`, ...tail, `stderr: ${this.#stderr.slice(-2000)}`].join(
      "\n",
    );
  }

  #onStdout(chunk: string): void {
    const lines = (this.#partial + chunk).split("\n");
    this.#partial = lines.pop() ?? "";
    for (const text of lines) {
      const line = parseLogLine(text);
      if (line) this.logs.push(line);
    }
  }
}

/** A bot started by `startBot`: its process and its HTTP server. */
export interface BotProcess {
  process: MainProcess;
  /** e.g. http://127.0.0.1:41234 */
  url: string;
}

/**
 * Starts `src/main.ts start` with `env` (HTTP on 127.0.0.1 at a free port unless HTTP_PORT
 * names one; LOG_LEVEL info) and resolves once it logged "payout bot running".
 */
export async function startBot(env: Record<string, string>): Promise<BotProcess> {
  const port = env.HTTP_PORT && env.HTTP_PORT !== "0" ? Number(env.HTTP_PORT) : await freePort();
  const child = new MainProcess(["start"], {
    ...env,
    HTTP_HOST: "127.0.0.1",
    HTTP_PORT: String(port),
    LOG_LEVEL: "info",
  });
  await child.waitForLog((line) => line.msg.startsWith("payout bot running"), 20_000);
  return { process: child, url: `http://127.0.0.1:${port}` };
}

/** The status code of GET /healthz, or 0 when nothing answers within `timeoutMs`. */
export async function healthStatus(baseUrl: string, timeoutMs = 2000): Promise<number> {
  try {
    const response = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

export interface PrivateRedisOptions {
  persist?: boolean;
  args?: readonly string[];
  configFile?: string;
  /** Default: a free port. */
  port?: number;
  /**
   * Default true: `stopAllProcesses` (a World's close) stops it too. False for a server
   * that outlives one test (a cluster started once per file stops its own).
   */
  tracked?: boolean;
}

/** A redis-server of the test's own, on a free port, that it may stop and start again. */
export class PrivateRedis {
  readonly port: number;
  readonly url: string;
  /** Data directory (removed by `close`); with `persist` its AOF keeps data across restarts. */
  readonly dir = mkdtempSync(join(tmpdir(), "payout-bot-redis-"));
  readonly #persist: boolean;
  readonly #args: readonly string[];
  readonly #configFile: string | undefined;
  #child: ChildProcess | undefined;
  readonly #tracked = { stop: () => this.close() };

  private constructor(port: number, options: PrivateRedisOptions) {
    this.port = port;
    this.url = `redis://127.0.0.1:${port}`;
    this.#persist = options.persist ?? false;
    this.#args = options.args ?? [];
    this.#configFile = options.configFile;
    if (options.tracked ?? true) running.add(this.#tracked);
  }

  /** True while its process runs (not stopped, not crashed). */
  get running(): boolean {
    return this.#child !== undefined;
  }

  /**
   * Starts one; `persist` turns the AOF on (the data survives `stop` and `start`); `args`
   * go to redis-server as they are (e.g. `["--replicaof", "127.0.0.1", "6380"]`); a
   * `configFile` is read first (a sentinel needs one it may rewrite, and `--sentinel`).
   */
  static async start(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
    const redis = new PrivateRedis(options.port ?? (await freePort()), options);
    await redis.start().catch(async (error: unknown) => {
      await redis.close();
      throw error;
    });
    return redis;
  }

  /** (Re)starts the server on the same port and directory; resolves once it answers. */
  async start(): Promise<void> {
    if (this.#child) return;
    const config = this.#configFile === undefined ? [] : [this.#configFile];
    const args = [...config, "--port", String(this.port), "--bind", "127.0.0.1", "--save", ""];
    args.push("--dir", this.dir, "--appendonly", this.#persist ? "yes" : "no", ...this.#args);
    const child = spawn("redis-server", args, { stdio: "ignore" });
    this.#child = child;
    child.once("exit", () => {
      if (this.#child === child) this.#child = undefined;
    });
    await waitUntil(() => redisAnswers(this.url, 500), `redis-server on port ${this.port}`);
  }

  /**
   * Shuts the server down and waits for it to exit: SIGTERM flushes the AOF; SIGKILL is a
   * crash (nothing more is written or sent to replicas).
   */
  async stop(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<void> {
    const child = this.#child;
    if (!child) return;
    const exited = once(child, "exit");
    child.kill(signal);
    const force = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(force);
  }

  /** Stops the server and removes its directory. */
  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
    running.delete(this.#tracked);
  }
}
