/**
 * The layer rules of shared/DESIGN.md that keep a bug from hiding: the sandbox stands in
 * for the outside world, so it imports nothing of the client, the payout logic, the stores
 * or the bot; a shared misreading would pass every test against it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_AMOUNT_XAF } from "../../src/model/money.js";
import { SANDBOX_MAX_AMOUNT_XAF } from "../../src/sandbox/index.js";

const SRC = new URL("../../src/", import.meta.url).pathname;

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

  it("never lets the bot ask for more than the sandbox takes", () => {
    expect(MAX_AMOUNT_XAF).toBeLessThanOrEqual(SANDBOX_MAX_AMOUNT_XAF);
  });
});
