/**
 * The layer rules of shared/DESIGN.md. The sandbox stands in for the outside world, so it
 * imports nothing of the client, the payout logic, the stores or the bot (a shared
 * misreading would pass every test against it); the model is the vocabulary under
 * everything and imports nothing of ours; the stores implement interfaces over it and never
 * reach up; one module sends payments; and files stay small enough to read.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_AMOUNT_XAF } from "../../src/model/money.js";
import { SANDBOX_MAX_AMOUNT_XAF } from "../../src/sandbox/index.js";

const SRC = new URL("../../src/", import.meta.url).pathname;

/** Every .ts file under `folder` of src/, as a path from src/. */
function filesOf(folder: string): string[] {
  return readdirSync(join(SRC, folder), { recursive: true, encoding: "utf8" })
    .filter((entry) => entry.endsWith(".ts"))
    .map((entry) => (folder === "." ? entry : `${folder}/${entry}`));
}

function importsOf(folder: string): Array<{ file: string; from: string }> {
  const found: Array<{ file: string; from: string }> = [];
  for (const entry of readdirSync(join(SRC, folder), { recursive: true, encoding: "utf8" })) {
    if (!entry.endsWith(".ts")) continue;
    const text = readFileSync(join(SRC, folder, entry), "utf8");
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
      found.push({ file: `${folder}/${entry}`, from: match[1] ?? "" });
    }
  }
  return found;
}

describe("layers", () => {
  it("finds imports at all (the check below can fail)", () => {
    expect(importsOf("sandbox").some((entry) => entry.from === "./spec.js")).toBe(true);
  });

  it("keeps the sandbox apart from the client, the payouts, the stores and the bot", () => {
    const crossing = importsOf("sandbox").filter((entry) =>
      /^(\.\.\/)+(payments|payouts|store|bot)\//.test(entry.from),
    );
    expect(crossing).toEqual([]);
  });

  it("keeps the model free of everything of ours but itself", () => {
    const outside = importsOf("model").filter(
      (entry) => entry.from.startsWith(".") && !entry.from.startsWith("./"),
    );
    expect(outside).toEqual([]);
    expect(importsOf("model").length).toBeGreaterThan(0);
  });

  it("keeps the stores below the payouts, the bot and the HTTP server", () => {
    const crossing = importsOf("store").filter((entry) =>
      /^(\.\.\/)+(payouts|bot|http|config)(\/|\.js)/.test(entry.from),
    );
    expect(crossing).toEqual([]);
  });

  it("sends payments from one module only: payouts/submission.ts", () => {
    const senders = filesOf(".").filter((file) => {
      if (/^(sandbox|dev|payments)\//.test(file)) return false;
      return /\.(disburse|collect)\(/.test(readFileSync(join(SRC, file), "utf8"));
    });
    expect(senders).toEqual(["payouts/submission.ts"]);
  });

  /**
   * Over 300 lines is a reason to look, not a limit: a file holds one idea, and a class is
   * never split across files to fit a number. A file that grows past it is named here, with
   * the idea it holds, once someone has looked; anything past 500 is more than one idea.
   */
  const LOOKED_AT: Readonly<Record<string, string>> = {
    "app.ts": "the composition root: builds, starts and stops every part in order",
    "store/memory.ts":
      "the small in-memory stores and their factory (to be one class per file under store/memory/)",
    "payouts/batch-worker.ts":
      "the batch worker, one class: rounds of name look-ups, row payments and approval expiry",
    "payouts/batch.ts":
      "the batch steps people take (upload, Confirm, Include, Cancel, Stop, a lost standing's stop), one class",
    "config/index.ts":
      "the env schema and the Config it resolves to, with every problem listed at once",
    "payouts/approval.ts":
      "four-eyes decisions on one payout, one class: asked, approved (duplicate, caps and PIN checked), rejected, withdrawn",
    "payments/client.ts":
      "the Payment API client: each endpoint, and the attempt loop with its slots and retries",
  };

  it("names every file in src/ over 300 lines with the idea it holds, and has none over 500", () => {
    const lengths = filesOf(".").map((file) => ({
      file,
      lines: readFileSync(join(SRC, file), "utf8").split("\n").length - 1,
    }));
    const unexplained = lengths
      .filter((entry) => entry.lines > 300 && LOOKED_AT[entry.file] === undefined)
      .map((entry) => entry.file);
    expect(unexplained).toEqual([]);
    expect(lengths.filter((entry) => entry.lines > 500)).toEqual([]);
  });

  it("never lets the bot ask for more than the sandbox takes", () => {
    expect(MAX_AMOUNT_XAF).toBeLessThanOrEqual(SANDBOX_MAX_AMOUNT_XAF);
  });
});
