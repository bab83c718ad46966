import { describe, expect, it } from "vitest";
import { newBatchId, newPayoutId, randomId } from "../../../src/payouts/ids.js";

// 20,000 draws: the chance that a base64url id never began with `-` or `_` is (62/64)^20000.
const DRAWS = 20_000;

describe("generated ids", () => {
  it.each([
    ["payout", newPayoutId, 16],
    ["batch", newBatchId, 8],
  ])("never begin a %s id with a formula character, and keep its length", (_kind, make, length) => {
    const ids = Array.from({ length: DRAWS }, make);
    expect(ids.filter((id) => !/^[A-Za-z0-9][\w-]*$/.test(id))).toEqual([]);
    expect(ids.filter((id) => id.length !== length)).toEqual([]);
    expect(new Set(ids).size).toBe(DRAWS);
  });

  it("still draws every other first character, and `-` and `_` further on", () => {
    const ids = Array.from({ length: DRAWS }, () => randomId(6));
    const firsts = new Set(ids.map((id) => id[0]));
    expect(firsts.size).toBe(62);
    const rest = ids.map((id) => id.slice(1)).join("");
    expect(rest).toContain("-");
    expect(rest).toContain("_");
  });
});
