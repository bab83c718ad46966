/**
 * A fixed CPU budget for a benchmark's process, as if it ran on a small machine of its own:
 * a cgroup v1 `cpu` controller group with a CFS bandwidth quota (kernel's
 * Documentation/scheduler/sched-bwc.rst). Within each period the group may run `quota` µs,
 * then its threads wait, throttled, for the next period. `cpu.stat` counts the periods
 * (nr_periods), those in which the group was throttled (nr_throttled) and the time its
 * threads waited (throttled_time, ns): a capped process that is the limit shows throttled
 * periods and a CPU use close to its share.
 *
 * The period is the shortest that keeps the quota at the kernel's 1 ms minimum (never under
 * 10 ms): a throttled process waits up to period − quota, so a 100 ms period (the default)
 * would add up to 0.1 s to a request that lands in a throttled stretch where a slower CPU
 * would add a fraction of a millisecond.
 *
 * Linux only, root (or a delegated, writable `cpu` hierarchy): `cpuCapUnavailable()` says
 * why not. Groups are removed on `remove()`, and at exit or on SIGINT/SIGTERM of the harness
 * (their processes moved back to the root group first, so the removal cannot fail on them).
 */
import { accessSync, constants, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const CPU_ROOT = "/sys/fs/cgroup/cpu";
/** The kernel refuses a quota or a period under 1 ms, and a period over 1 s. */
const MIN_QUOTA_US = 1000;
const MIN_PERIOD_US = 10_000;
const MAX_PERIOD_US = 1_000_000;

const live = new Set<CpuCap>();
let counter = 0;

/** Counters of a group's `cpu.stat`. */
export interface Throttling {
  periods: number;
  throttledPeriods: number;
  throttledMs: number;
}

function cpuStatOf(text: string): Throttling {
  const field = (name: string) => Number(new RegExp(`^${name} (\\d+)`, "m").exec(text)?.[1] ?? 0);
  return {
    periods: field("nr_periods"),
    throttledPeriods: field("nr_throttled"),
    throttledMs: field("throttled_time") / 1e6,
  };
}

/** `after` − `before`, counter by counter. */
export function throttlingBetween(before: Throttling, after: Throttling): Throttling {
  return {
    periods: after.periods - before.periods,
    throttledPeriods: after.throttledPeriods - before.throttledPeriods,
    throttledMs: after.throttledMs - before.throttledMs,
  };
}

/** Period and quota (µs) for `share` of one core: the quota at 1 ms where it can be. */
export function periodAndQuota(share: number): { periodUs: number; quotaUs: number } {
  if (!(share > 0 && share <= 1)) throw new Error(`a CPU share is in (0, 1], not ${share}`);
  const periodUs = Math.min(
    MAX_PERIOD_US,
    Math.max(MIN_PERIOD_US, Math.round(MIN_QUOTA_US / share)),
  );
  const quotaUs = Math.round(periodUs * share);
  if (quotaUs < MIN_QUOTA_US) throw new Error(`a share of ${share} is under 1 ms a second`);
  return { periodUs, quotaUs };
}

/**
 * Why a cap cannot be set here (no cgroup v1 `cpu` controller at /sys/fs/cgroup/cpu, or
 * not writable: not root, a read-only cgroupfs in a container), or null when it can.
 * It tries: a group made, given a quota, and removed.
 */
export function cpuCapUnavailable(): string | null {
  try {
    accessSync(join(CPU_ROOT, "cgroup.procs"), constants.W_OK);
  } catch (error) {
    return `no writable cgroup v1 cpu controller at ${CPU_ROOT} (${errorCode(error)})`;
  }
  const probe = join(CPU_ROOT, `momo-bench-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    try {
      writeFileSync(join(probe, "cpu.cfs_period_us"), String(MIN_PERIOD_US * 10));
      writeFileSync(join(probe, "cpu.cfs_quota_us"), String(MIN_QUOTA_US));
    } finally {
      rmdirSync(probe);
    }
  } catch (error) {
    return `cannot make a group with a CPU quota under ${CPU_ROOT} (${errorCode(error)})`;
  }
  return null;
}

function errorCode(error: unknown): string {
  if (error instanceof Error && "code" in error) return String(error.code);
  return error instanceof Error ? error.message : String(error);
}

function cleanUpAll(): void {
  for (const cap of live) cap.remove();
}

function onSignal(signal: NodeJS.Signals): void {
  cleanUpAll();
  // The default action, now that the groups are gone: exit handlers stop the children.
  process.exit(signal === "SIGINT" ? 130 : 143);
}

function watchExit(): void {
  if (live.size > 0) return;
  process.on("exit", cleanUpAll);
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

function unwatchExit(): void {
  if (live.size > 0) return;
  process.off("exit", cleanUpAll);
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
}

/** One cgroup with a CPU quota; processes join it with `add`. */
export class CpuCap {
  readonly share: number;
  readonly periodUs: number;
  readonly quotaUs: number;
  readonly #dir: string;
  #removed = false;

  private constructor(dir: string, share: number, periodUs: number, quotaUs: number) {
    this.#dir = dir;
    this.share = share;
    this.periodUs = periodUs;
    this.quotaUs = quotaUs;
  }

  /** A new group capped at `share` of one core (e.g. 0.03), named after this process. */
  static create(share: number): CpuCap {
    const { periodUs, quotaUs } = periodAndQuota(share);
    counter += 1;
    const dir = join(CPU_ROOT, `momo-bench-${process.pid}-${counter}`);
    mkdirSync(dir);
    const cap = new CpuCap(dir, share, periodUs, quotaUs);
    watchExit();
    live.add(cap);
    try {
      // Period first: with the quota still unlimited, any period is valid.
      writeFileSync(join(dir, "cpu.cfs_period_us"), String(periodUs));
      writeFileSync(join(dir, "cpu.cfs_quota_us"), String(quotaUs));
    } catch (error) {
      cap.remove();
      throw error;
    }
    return cap;
  }

  /** Moves process `pid` (every thread of it) into the group. */
  add(pid: number): void {
    writeFileSync(join(this.#dir, "cgroup.procs"), String(pid));
  }

  /** The group's throttling counters so far. */
  throttling(): Throttling {
    return cpuStatOf(readFileSync(join(this.#dir, "cpu.stat"), "utf8"));
  }

  /** Moves any process left back to the root group and removes the group. Idempotent. */
  remove(): void {
    if (this.#removed) return;
    this.#removed = true;
    live.delete(this);
    unwatchExit();
    try {
      const left = readFileSync(join(this.#dir, "cgroup.procs"), "utf8").split("\n");
      for (const pid of left.filter((line) => line !== "")) {
        try {
          writeFileSync(join(CPU_ROOT, "cgroup.procs"), pid);
        } catch {
          // It exited meanwhile.
        }
      }
      rmdirSync(this.#dir);
    } catch (error) {
      process.stderr.write(`could not remove cgroup ${this.#dir}: ${errorCode(error)}\n`);
    }
  }
}
