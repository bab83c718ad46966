import { describe, expect, it } from "vitest";
import { randomHex } from "../../src/random.js";

describe("randomHex", () => {
  it("gives hex of the length asked, never the same token twice across pool refills", () => {
    const seen = new Set<string>();
    // 8 bytes a token: 4096 / 8 = 512 tokens a pool, so this crosses ten refills.
    for (let index = 0; index < 5_000; index += 1) {
      const token = randomHex(8);
      expect(token).toMatch(/^[0-9a-f]{16}$/);
      seen.add(token);
    }
    expect(seen.size).toBe(5_000);
    expect(randomHex(3)).toMatch(/^[0-9a-f]{6}$/);
    expect(() => randomHex(4097)).toThrow(RangeError);
  });

  it("uses every byte value (the pool is refilled with new bytes, not reused)", () => {
    const counts = new Map<string, number>();
    for (let index = 0; index < 2_000; index += 1) {
      const byte = randomHex(5).slice(0, 2);
      counts.set(byte, (counts.get(byte) ?? 0) + 1);
    }
    expect(counts.size).toBeGreaterThan(240);
  });
});
