/**
 * Reads a latency trace (`BENCH_LATENCY_TRACE=<file> npm run bench -- --only=latency`):
 * `npx tsx bench/latency-trace.ts <file> [setting] [slowest]`. For each timed step of the
 * setting (default "1 user, proxy"), the app's trace of the update behind it, split into:
 * the way in (queued at the emulator → the bot starts handling it, less the relay's delay),
 * the bot's own part (→ the Bot API call the user sees leaves), the way out (→ it reaches
 * the emulator, less the relay's delay), and GC pauses within the step. Prints the split
 * of the median and the slowest steps, and each slowest step's marks.
 */
import { readFileSync } from "node:fs";

const TELEGRAM_DELAY_MS = 20;

interface Step {
  setting: string;
  step: "prompt" | "confirm";
  chat: number;
  startMs: number;
  ms: number;
}

interface UpdateTrace {
  update: number;
  chat?: number;
  kind: string;
  marks: Array<[string, number]>;
}

interface Gc {
  gc: number;
  ms: number;
}

function lines(file: string): unknown[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as unknown);
}

const [file, settingArg, slowestArg] = process.argv.slice(2);
if (!file) throw new Error("usage: tsx bench/latency-trace.ts <file> [setting] [slowest]");
const setting = settingArg ?? "1 user, proxy";
const slowest = Number(slowestArg ?? 5);
const steps = (lines(`${file}.steps.jsonl`) as Step[]).filter((s) => s.setting === setting);
const botLines = lines(`${file}.bot.jsonl`);
const updates = botLines.filter((line): line is UpdateTrace =>
  Reflect.has(line as object, "update"),
);
const gcs = botLines.filter((line): line is Gc => Reflect.has(line as object, "gc"));

/** The Bot API call that shows the step: the prompt's sendMessage, the edit to Pending. */
const SHOWN = { prompt: "http> POST sendMessage", confirm: "http> POST editMessageText" };

interface Split {
  step: Step;
  trace: UpdateTrace | undefined;
  wayIn: number;
  bot: number;
  wayOut: number;
  gcMs: number;
  /** Redis round trips the bot waited for before the shown call (overlapping ones as one). */
  redisTrips: number;
  /** Time with a Redis command outstanding, before the shown call. */
  redisMs: number;
}

/**
 * Redis waits between `fromMs` and `toMs`: each command's [sent, answered] clipped to the
 * window, overlapping ones merged; their count and total length.
 */
function redisWaits(trace: UpdateTrace, fromMs: number, toMs: number) {
  const sent = new Map<string, number[]>();
  const spans: Array<[number, number]> = [];
  for (const [name, ms] of trace.marks) {
    const what = name.slice(7);
    if (name.startsWith("redis> ")) sent.set(what, [...(sent.get(what) ?? []), ms]);
    if (name.startsWith("redis< ") || name.startsWith("redis! ")) {
      const start = sent.get(what)?.shift();
      if (start !== undefined) spans.push([start, ms]);
    }
  }
  const clipped = spans
    .map(([a, b]): [number, number] => [Math.max(a, fromMs), Math.min(b, toMs)])
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let trips = 0;
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  let start = 0;
  for (const [a, b] of clipped) {
    if (a > end) {
      if (trips > 0) total += end - start;
      trips += 1;
      start = a;
      end = b;
    } else end = Math.max(end, b);
  }
  if (trips > 0) total += end - start;
  return { trips, total };
}

function split(step: Step): Split {
  const endMs = step.startMs + step.ms;
  const wantsPress = step.step === "confirm";
  const trace = updates.find((u) => {
    const handle = u.marks.find(([name]) => name === "handle")?.[1] ?? 0;
    return (
      u.chat === step.chat &&
      u.kind.startsWith("press") === wantsPress &&
      handle >= step.startMs - 5 &&
      handle <= endMs
    );
  });
  const at = (name: string) => trace?.marks.filter(([n]) => n === name).at(-1)?.[1];
  const handle = at("handle") ?? Number.NaN;
  const shown = at(SHOWN[step.step]) ?? Number.NaN;
  const gcMs = gcs
    .filter((gc) => gc.gc + gc.ms > step.startMs && gc.gc < endMs)
    .reduce((sum, gc) => sum + gc.ms, 0);
  const waits = trace ? redisWaits(trace, handle, shown) : { trips: Number.NaN, total: Number.NaN };
  return {
    step,
    trace,
    redisTrips: waits.trips,
    redisMs: waits.total,
    wayIn: handle - step.startMs - TELEGRAM_DELAY_MS,
    bot: shown - handle,
    wayOut: endMs - shown - TELEGRAM_DELAY_MS,
    gcMs,
  };
}

const f = (ms: number) => (Number.isFinite(ms) ? ms.toFixed(2).padStart(7) : "      ?");

for (const kind of ["prompt", "confirm"] as const) {
  const ofKind = steps
    .filter((s) => s.step === kind)
    .map(split)
    .sort((a, b) => a.step.ms - b.step.ms);
  if (ofKind.length === 0) continue;
  const median = ofKind[Math.floor(ofKind.length / 2)];
  console.log(`\n== ${kind}: ${ofKind.length} steps (${setting}); ms over the relay's 40 ms`);
  console.log("          added  way in     bot  way out      gc  redis rt redis ms");
  const show = (what: string, s: Split) =>
    console.log(
      `${what.padEnd(8)} ${f(s.step.ms - 2 * TELEGRAM_DELAY_MS)} ${f(s.wayIn)} ${f(s.bot)} ${f(s.wayOut)} ${f(s.gcMs)} ${f(s.redisTrips)}  ${f(s.redisMs)}`,
    );
  if (median) show("median", median);
  const mean = (pick: (s: Split) => number) =>
    ofKind
      .map(pick)
      .filter(Number.isFinite)
      .reduce((a, b) => a + b, 0) / ofKind.length;
  console.log(
    `mean     ${f(mean((s) => s.step.ms - 40))} ${f(mean((s) => s.wayIn))} ${f(mean((s) => s.bot))} ${f(mean((s) => s.wayOut))} ${f(mean((s) => s.gcMs))} ${f(mean((s) => s.redisTrips))}  ${f(mean((s) => s.redisMs))}`,
  );
  const slow = ofKind.slice(-slowest).reverse();
  for (const [index, s] of slow.entries()) show(`slow ${index + 1}`, s);
  for (const s of [median, ...slow]) {
    if (!s?.trace) continue;
    const origin = s.step.startMs;
    console.log(
      `\n  ${kind} ${f(s.step.ms)} ms (update ${s.trace.update}): ms from the step's start`,
    );
    for (const [name, ms] of s.trace.marks) console.log(`    ${f(ms - origin)}  ${name}`);
  }
}
