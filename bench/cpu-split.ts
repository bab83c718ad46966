/**
 * Where a bot's CPU went, from a V8 CPU profile (`BENCH_CPU_PROF=<dir>` makes every
 * benchmark child write one on exit): each sample is charged to the module of the nearest
 * frame of our code on its stack (src/… or bench/…), so the time spent in ioredis, undici,
 * zod or Node's streams for a call our code made counts to the module that made it. A sample
 * with no frame of ours is charged to what is on top: the garbage collector, Node's own
 * JavaScript, or the package. Idle samples are left out: shares are of the busy time.
 *
 * `npx tsx bench/cpu-split.ts [--skip-ms=<n>] [--top=<n>] <file.cpuprofile>…` prints one
 * split per file; `pay-guards` uses `cpuSplit` itself when BENCH_CPU_PROF is set.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const ProfileSchema = z.object({
  nodes: z.array(
    z.object({
      id: z.number(),
      callFrame: z.object({ functionName: z.string(), url: z.string() }),
      children: z.array(z.number()).optional(),
    }),
  ),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});

/** Our code as the benchmarks run it: transpiled under node_modules/.cache/momo-bench/<checkout>/. */
const OURS = /\/\.cache\/momo-bench\/[^/]+\/((?:src|bench)\/.+)\.js$/;
const PACKAGE = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//;

export interface CpuSplit {
  /** Busy time (every sample but the idle ones), in ms. */
  busyMs: number;
  /** Busy ms per module of ours (e.g. "src/store/redis/audit.ts") or outside label. */
  byModule: Map<string, number>;
}

function outsideLabel(url: string): string | undefined {
  const pkg = PACKAGE.exec(url);
  if (pkg) return `(outside: ${pkg[1]})`;
  if (url.startsWith("node:")) return "(outside: Node's JavaScript)";
  return undefined;
}

export interface SplitWindow {
  /** Leave out the profile's first `skipMs`. */
  skipMs?: number;
  /** Keep only the profile's last `lastMs` (e.g. from a warm-up to the process's exit). */
  lastMs?: number;
}

/** The split of one profile, or of the window of it that `window` names. */
export function cpuSplit(path: string, window: SplitWindow = {}): CpuSplit {
  const profile = ProfileSchema.parse(JSON.parse(readFileSync(path, "utf8")));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const labelOf = new Map<number, string | null>();
  const label = (id: number): string | null => {
    const known = labelOf.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    if (!node) return null;
    const { functionName } = node.callFrame;
    if (functionName === "(idle)") {
      labelOf.set(id, null);
      return null;
    }
    // The nearest frame of ours; failing that, the nearest package or Node module (a native
    // leaf such as writev or JSON.parse has no URL of its own).
    let found: string | undefined;
    let outside: string | undefined;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frameUrl = byId.get(at)?.callFrame.url ?? "";
      const ours = OURS.exec(frameUrl);
      if (ours) {
        found = `${ours[1]}.ts`;
        break;
      }
      outside ??= outsideLabel(frameUrl);
    }
    const result =
      found ??
      (functionName === "(garbage collector)"
        ? "(outside: garbage collection)"
        : (outside ?? "(outside: V8 and native code)"));
    labelOf.set(id, result);
    return result;
  };
  const byModule = new Map<string, number>();
  const totalMs = profile.timeDeltas.reduce((sum, delta) => sum + delta, 0) / 1000;
  const skipMs = Math.max(window.skipMs ?? 0, totalMs - (window.lastMs ?? totalMs));
  let elapsedMs = 0;
  let busyMs = 0;
  profile.samples.forEach((id, index) => {
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    elapsedMs += ms;
    if (elapsedMs < skipMs) return;
    const name = label(id);
    if (name === null) return;
    busyMs += ms;
    byModule.set(name, (byModule.get(name) ?? 0) + ms);
  });
  return { busyMs, byModule };
}

/** The split as lines: share of busy time, module; the `top` largest. */
export function formatSplit(split: CpuSplit, top: number): string[] {
  return [...split.byModule.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ms]) => `${((100 * ms) / split.busyMs).toFixed(1).padStart(5)}%  ${name}`);
}

function main(argv: readonly string[]): void {
  let skipMs = 0;
  let top = 30;
  const files: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith("--skip-ms=")) skipMs = Number(arg.slice("--skip-ms=".length));
    else if (arg.startsWith("--top=")) top = Number(arg.slice("--top=".length));
    else files.push(arg);
  }
  for (const file of files) {
    const split = cpuSplit(file, { skipMs });
    process.stdout.write(`${file}: ${split.busyMs.toFixed(0)} ms busy\n`);
    process.stdout.write(`${formatSplit(split, top).join("\n")}\n\n`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
