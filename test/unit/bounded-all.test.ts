import { describe, expect, it } from "vitest";
import { allBounded } from "../../src/bounded-all.js";

/** A task that resolves when told to, counting how many run at once. */
function gate() {
  let running = 0;
  let most = 0;
  const waiting: Array<() => void> = [];
  const work = async (item: number) => {
    running += 1;
    most = Math.max(most, running);
    await new Promise<void>((resolve) => waiting.push(resolve));
    running -= 1;
    if (item < 0) throw new Error(`bad ${item}`);
    return item * 10;
  };
  /** Lets every task waiting now go on, until all are done. */
  const drain = async (done: Promise<unknown>) => {
    let finished = false;
    void done.finally(() => {
      finished = true;
    });
    while (!finished) {
      for (const resolve of waiting.splice(0)) resolve();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { work, drain, most: () => most };
}

describe("allBounded", () => {
  it("runs no more than the limit at once and answers in the items' order", async () => {
    const { work, drain, most } = gate();
    const done = allBounded([1, 2, 3, 4, 5, 6, 7], 3, work);
    await drain(done);
    expect(await done).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => ({ status: "fulfilled", value: n * 10 })),
    );
    expect(most()).toBe(3);
  });

  it("begins nothing more once one failed, and waits for those already running", async () => {
    const { work, drain } = gate();
    const done = allBounded([1, -2, 3, 4, 5], 2, work);
    await drain(done);
    expect(await done).toEqual([
      { status: "fulfilled", value: 10 },
      { status: "rejected", reason: new Error("bad -2") },
      { status: "fulfilled", value: 30 },
      { status: "skipped" },
      { status: "skipped" },
    ]);
  });

  it("refuses a limit under one", async () => {
    await expect(allBounded([1], 0, async (n) => n)).rejects.toThrow(RangeError);
  });
});
