import { existsSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { type ExportResult, writeExport } from "../../../src/csv/export.js";
import { payoutSource } from "../../../src/csv/payouts.js";
import { createMemoryStores } from "../../../src/store/memory.js";
import { acceptedPayout } from "../../support/payouts.js";

const NOW = Date.UTC(2025, 0, 6, 12);

async function exportOf(count: number, options: { maxRows: number; pageSize: number }) {
  const stores = createMemoryStores({ retentionMs: 86_400_000, now: () => NOW });
  for (let index = 0; index < count; index++) {
    await stores.payouts.create(acceptedPayout(NOW - 1000 + index, { note: `row ${index}` }));
  }
  const source = payoutSource({
    stores,
    window: { fromMs: NOW - 10_000, toMs: NOW },
    timeZone: "UTC",
    header: (column) => column,
    pageSize: options.pageSize,
  });
  return writeExport(source, { fileName: "payouts.csv", locale: "en", maxRows: options.maxRows });
}

async function notesOf(result: ExportResult): Promise<string[]> {
  if (result.kind !== "file") throw new Error("no file");
  const rows: string[][] = parse(readFileSync(result.file.path, "utf8"), { bom: true });
  await result.file.discard();
  expect(existsSync(dirname(result.file.path))).toBe(false);
  return rows.slice(1).map((row) => row[11] ?? "");
}

describe("writeExport", () => {
  it("writes every row, page by page, and is not cut when the period fits exactly", async () => {
    const result = await exportOf(10, { maxRows: 10, pageSize: 5 });
    expect(result).toMatchObject({ kind: "file", rows: 10, truncated: false });
    expect(await notesOf(result)).toEqual(Array.from({ length: 10 }, (_, i) => `row ${i}`));
  });

  it("stops at the most rows it may write and says the period held more", async () => {
    const inPage = await exportOf(10, { maxRows: 7, pageSize: 5 });
    expect(inPage).toMatchObject({ kind: "file", rows: 7, truncated: true, pages: 2 });
    expect(await notesOf(inPage)).toHaveLength(7);
    const atPageEnd = await exportOf(11, { maxRows: 10, pageSize: 5 });
    expect(atPageEnd).toMatchObject({ rows: 10, truncated: true });
    expect(await notesOf(atPageEnd)).toHaveLength(10);
  });

  it("leaves no file for a period with nothing", async () => {
    expect(await exportOf(0, { maxRows: 10, pageSize: 5 })).toEqual({ kind: "empty", pages: 1 });
  });
});

describe("payoutSource", () => {
  it("shows the schedule each payout is a run of, and nothing for any other", async () => {
    const stores = createMemoryStores({ retentionMs: 86_400_000, now: () => NOW });
    const run = acceptedPayout(NOW - 2000, { scheduleId: "sched00001" });
    const single = acceptedPayout(NOW - 1000);
    await stores.payouts.create(run);
    await stores.payouts.create(single);
    const source = payoutSource({
      stores,
      window: { fromMs: NOW - 10_000, toMs: NOW },
      timeZone: "UTC",
      header: (column) => column,
    });
    const { items } = await source.page(undefined);
    const rows = await source.rows(items);
    expect(rows.map((row) => [row.created, row.schedule])).toEqual([
      ["2025-01-06 11:59:58", "sched00001"],
      ["2025-01-06 11:59:59", undefined],
    ]);
  });
});
