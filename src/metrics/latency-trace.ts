/**
 * Where one update's time goes, for the latency benchmark (bench/latency.ts with
 * BENCH_LATENCY_TRACE=<file>): each update handled gets a line of marks on the wall clock
 * (sub-millisecond, `performance.timeOrigin + performance.now()`), the poll that brought it,
 * the phases the code names (`traceMark`), every Redis command and every HTTP request
 * (Telegram, the Payment API) started while it was handled, and a line per GC pause.
 * Off unless `startLatencyTrace` ran (bench/bot-process.ts): `traceMark` is then one check
 * of a module variable, and nothing is wrapped or subscribed.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import diagnosticsChannel from "node:diagnostics_channel";
import { appendFileSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { Redis } from "ioredis";

/** One update's marks: [what, wall-clock ms]. */
interface UpdateTrace {
  update: number;
  chat: number | undefined;
  kind: string;
  marks: Array<[string, number]>;
}

interface Tracer {
  file: string;
  storage: AsyncLocalStorage<UpdateTrace>;
  lines: string[];
}

let tracer: Tracer | undefined;

/** The wall clock in ms, sub-millisecond: comparable across this machine's processes. */
export function wallMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Whether a trace is being taken (callers skip the work of a mark's details otherwise). */
export function latencyTraceOn(): boolean {
  return tracer !== undefined;
}

/** Marks `name` on the update being handled, if a trace is taken. */
export function traceMark(name: string): void {
  if (tracer === undefined) return;
  tracer.storage.getStore()?.marks.push([name, wallMs()]);
}

interface UpdateLike {
  update_id: number;
  message?: { chat?: { id: number }; text?: string };
  callback_query?: { message?: { chat?: { id: number } }; data?: string };
}

/**
 * Runs `handle` for `update` with its trace (when one is taken): `polled` are the marks of
 * the getUpdates that brought it (asked, answered).
 */
export function traceUpdate<T>(
  update: UpdateLike,
  polled: Array<[string, number]>,
  handle: () => Promise<T>,
): Promise<T> {
  const active = tracer;
  if (active === undefined) return handle();
  const callback = update.callback_query;
  const trace: UpdateTrace = {
    update: update.update_id,
    chat: update.message?.chat?.id ?? callback?.message?.chat?.id,
    kind: callback ? `press ${callback.data?.split(":")[0] ?? ""}` : "message",
    marks: [...polled, ["handle", wallMs()]],
  };
  return active.storage.run(trace, handle).finally(() => {
    trace.marks.push(["done", wallMs()]);
    active.lines.push(JSON.stringify(trace));
  });
}

/** The last part of a Redis key (its prefix and ids say nothing of the phase). */
function keyTail(key: unknown): string {
  const text = typeof key === "string" ? key : Buffer.isBuffer(key) ? key.toString() : "";
  const parts = text.split(":");
  return parts.slice(-2).join(":").slice(0, 40);
}

interface TracedCommand {
  name: string;
  args: unknown[];
  promise: Promise<unknown>;
}

/** Every command sent while an update is handled: sent, answered. */
function traceRedis(active: Tracer): void {
  const prototype = Redis.prototype as unknown as {
    sendCommand: (command: TracedCommand, ...rest: unknown[]) => unknown;
  };
  const original = prototype.sendCommand;
  prototype.sendCommand = function traced(this: unknown, command, ...rest) {
    const trace = active.storage.getStore();
    if (trace) {
      const what =
        command.name === "evalsha" ? `evalsha ${keyTail(command.args[2])}` : command.name;
      trace.marks.push([`redis> ${what}`, wallMs()]);
      command.promise.then(
        () => trace.marks.push([`redis< ${what}`, wallMs()]),
        () => trace.marks.push([`redis! ${what}`, wallMs()]),
      );
    }
    return original.call(this, command, ...rest);
  };
}

interface UndiciRequest {
  method?: string;
  origin?: string;
  path?: string;
}

/** Every HTTP request made with undici while an update is handled: created, headers, body. */
function traceHttp(active: Tracer): void {
  const traces = new WeakMap<object, { trace: UpdateTrace; what: string }>();
  const name = (request: UndiciRequest) => {
    const path = request.path ?? "";
    const method = path.includes("/bot") ? (path.split("/").at(-1) ?? "") : path.slice(0, 30);
    return `${request.method ?? ""} ${method.replace(/\d{6,}/g, "#")}`;
  };
  const requestOf = (message: unknown): object | undefined => {
    const request: unknown =
      typeof message === "object" && message !== null ? Reflect.get(message, "request") : null;
    return typeof request === "object" && request !== null ? request : undefined;
  };
  diagnosticsChannel.subscribe("undici:request:create", (message) => {
    const request = requestOf(message);
    const trace = active.storage.getStore();
    if (!request || !trace) return;
    const what = name(request as UndiciRequest);
    traces.set(request, { trace, what });
    trace.marks.push([`http> ${what}`, wallMs()]);
  });
  const phase = (channel: string, sign: string) =>
    diagnosticsChannel.subscribe(channel, (message) => {
      const request = requestOf(message);
      const traced = request ? traces.get(request) : undefined;
      traced?.trace.marks.push([`http${sign} ${traced.what}`, wallMs()]);
    });
  phase("undici:request:headers", "<");
  phase("undici:request:trailers", "<<");
  phase("undici:request:error", "!");
}

/** GC pauses, each a line of its own (they stop every update alike). */
function traceGc(active: Tracer): void {
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const startMs = performance.timeOrigin + entry.startTime;
      active.lines.push(JSON.stringify({ gc: startMs, ms: entry.duration }));
    }
  });
  observer.observe({ entryTypes: ["gc"] });
}

/**
 * Starts taking the trace into `file` (JSON lines, appended about once a second and at
 * exit). For a benchmark's bot process only.
 */
export function startLatencyTrace(file: string): void {
  if (tracer) return;
  const active: Tracer = { file, storage: new AsyncLocalStorage(), lines: [] };
  tracer = active;
  traceRedis(active);
  traceHttp(active);
  traceGc(active);
  const take = () => {
    const text = active.lines.length > 0 ? `${active.lines.join("\n")}\n` : "";
    active.lines = [];
    return text;
  };
  setInterval(() => {
    const text = take();
    if (text) void appendFile(file, text).catch(() => undefined);
  }, 1000).unref();
  process.on("exit", () => {
    const text = take();
    if (text) appendFileSync(file, text);
  });
}
