import { describe, expect, it } from "vitest";
import { argon2Hasher } from "../../../src/payouts/pin-hash.js";

describe("argon2Hasher", () => {
  it("keeps a PIN as a salted argon2id PHC string that checks the right PIN only", async () => {
    const first = await argon2Hasher.hash("482916");
    const second = await argon2Hasher.hash("482916");
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(first).not.toContain("482916");
    // A fresh salt each time: the same PIN never hashes the same.
    expect(second).not.toBe(first);
    expect(await argon2Hasher.verify(first, "482916")).toBe(true);
    expect(await argon2Hasher.verify(first, "482917")).toBe(false);
    expect(await argon2Hasher.verify("not a hash", "482916")).toBe(false);
  });
});
