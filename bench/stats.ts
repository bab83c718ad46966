/**
 * Numbers and the result table of `npm run bench`: percentiles, medians, the row every
 * benchmark returns, the printed table and the machine facts saved with the results.
 */
import { cpus, totalmem } from "node:os";

/** One line of the result table (and of bench/results.json). */
export interface Row {
  /** Which benchmark produced it, e.g. "1 pay round trip". */
  bench: string;
  figure: string;
  /** `null` when the benchmark could not produce it. */
  value: number | null;
  unit: string;
  /** The same figure for the baseline run side by side, when there is one. */
  baseline: number | null;
  /** value / baseline, when both exist. */
  ratio: number | null;
  /**
   * The same figure for the floor bot (bench/floor-bot.ts: the same job with nothing extra),
   * measured side by side in the same run, where the benchmark runs it.
   */
  floor?: number | null;
  /** value / floor, when both exist. */
  floorRatio?: number | null;
  /** The target in words, e.g. "< 10 ms" or "≥ 0.5× baseline"; "" for a figure without one. */
  target: string;
  /** `null` for a figure without a target. */
  met: boolean | null;
  /** Why a figure is what it is, printed under the table. */
  note?: string;
}

/** Nearest-rank percentile (`p` from 0 to 100) of `values`; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? upper) + upper) / 2;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** value / baseline, or null when either is missing or the baseline is zero. */
function ratioOf(value: number | null, baseline: number | null): number | null {
  if (value === null || baseline === null || baseline === 0) return null;
  if (!Number.isFinite(value) || !Number.isFinite(baseline)) return null;
  return value / baseline;
}

/** A row with its ratio filled in. */
export function row(fields: Omit<Row, "ratio"> & { ratio?: number | null }): Row {
  const filled = { ...fields, ratio: fields.ratio ?? ratioOf(fields.value, fields.baseline) };
  if (fields.floor === undefined) return filled;
  return { ...filled, floorRatio: fields.floorRatio ?? ratioOf(fields.value, fields.floor) };
}

function formatValue(value: number | null, unit: string): string {
  if (value === null || !Number.isFinite(value)) return "—";
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  const text = value.toLocaleString("en-US", {
    maximumFractionDigits: digits,
    minimumFractionDigits: 0,
  });
  return unit === "" ? text : `${text} ${unit}`;
}

function formatMet(met: boolean | null): string {
  if (met === null) return "—";
  return met ? "yes" : "NO";
}

/** The table as text: one line per row, columns padded, notes numbered underneath. */
export function formatTable(rows: readonly Row[]): string {
  const header = [
    "bench",
    "figure",
    "value",
    "baseline",
    "ratio",
    "floor",
    "÷ floor",
    "target",
    "met?",
  ];
  const notes: string[] = [];
  const lines = rows.map((r) => {
    let figure = r.figure;
    if (r.note) {
      notes.push(r.note);
      figure = `${figure} [${notes.length}]`;
    }
    return [
      r.bench,
      figure,
      formatValue(r.value, r.unit),
      formatValue(r.baseline, r.unit),
      r.ratio === null ? "—" : `${r.ratio.toFixed(2)}×`,
      formatValue(r.floor ?? null, r.unit),
      r.floorRatio === undefined || r.floorRatio === null ? "—" : `${r.floorRatio.toFixed(2)}×`,
      r.target === "" ? "—" : r.target,
      formatMet(r.met),
    ];
  });
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => (line[column] ?? "").length)),
  );
  const render = (cells: readonly string[]) =>
    cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ");
  const separator = widths.map((width) => "-".repeat(width)).join("-|-");
  const noteLines = notes.map((note, index) => `[${index + 1}] ${note}`);
  return [render(header), separator, ...lines.map(render), "", ...noteLines].join("\n");
}

export interface MachineInfo {
  node: string;
  platform: string;
  arch: string;
  cpuCount: number;
  cpuModel: string;
  totalMemoryMb: number;
  date: string;
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpuCount: list.length,
    cpuModel: list[0]?.model ?? "unknown",
    totalMemoryMb: Math.round(totalmem() / 1024 / 1024),
    date: new Date().toISOString(),
  };
}

/** Runs `task` on `concurrency` loops until `total` calls are done or `deadlineMs` passed. */
export async function runConcurrently(
  total: number,
  concurrency: number,
  deadlineMs: number,
  task: () => Promise<void>,
): Promise<{ count: number; elapsedMs: number }> {
  let started = 0;
  const startedAt = performance.now();
  const stopAt = startedAt + deadlineMs;
  const loop = async () => {
    while (started < total && performance.now() < stopAt) {
      started += 1;
      await task();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return { count: started, elapsedMs: performance.now() - startedAt };
}
