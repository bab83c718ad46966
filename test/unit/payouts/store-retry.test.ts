import { describe, expect, it } from "vitest";
import {
  PERSISTENT_RETRY,
  QUICK_RETRY,
  retryDelayMs,
  retryStoreWrite,
} from "../../../src/payouts/store-retry.js";

describe("store write retries", () => {
  it("double the pause after each failure, up to the policy's cap", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryDelayMs(PERSISTENT_RETRY, n))).toEqual([
      100, 200, 400, 800, 1600, 3200, 5000, 5000,
    ]);
  });

  it("give up after the quick policy's few tries with the last error", async () => {
    let tries = 0;
    const retries: number[] = [];
    await expect(
      retryStoreWrite(
        async () => {
          tries += 1;
          throw new Error(`down ${tries}`);
        },
        QUICK_RETRY,
        (_error, attempt) => retries.push(attempt),
      ),
    ).rejects.toThrow("down 4");
    // 50 + 100 + 100 ms of pauses fit in 300 ms; a fourth pause would not.
    expect(tries).toBe(4);
    expect(retries).toEqual([1, 2, 3]);
  });

  it("return the first success after failures", async () => {
    let tries = 0;
    const result = await retryStoreWrite(
      async () => {
        tries += 1;
        if (tries < 3) throw new Error("not yet");
        return "written";
      },
      QUICK_RETRY,
      () => {},
    );
    expect(result).toBe("written");
    expect(tries).toBe(3);
  });
});
