import { describe, expect, it } from "vitest";
import { BatchWaitEndedError, leaseKeeper } from "../../../../src/payouts/batch/lease.js";

describe("leaseKeeper", () => {
  it("renews the lease while it is ours, and ends the wait once it is lost", async () => {
    const answers = [true, false];
    let renewals = 0;
    const keepAlive = leaseKeeper(
      "b1",
      async () => {
        renewals += 1;
        return answers.shift() ?? false;
      },
      0,
      new AbortController().signal,
    );
    await keepAlive();
    expect(renewals).toBe(1);
    await expect(keepAlive()).rejects.toThrow(/b1: stopped waiting .*lease lost/);
    expect(renewals).toBe(2);
  });

  it("renews at most once per interval", async () => {
    let renewals = 0;
    const keepAlive = leaseKeeper(
      "b2",
      async () => {
        renewals += 1;
        return true;
      },
      3_600_000,
      new AbortController().signal,
    );
    await keepAlive();
    await keepAlive();
    expect(renewals).toBe(0);
  });

  it("ends the wait at once when the worker is stopping", async () => {
    const stopping = new AbortController();
    const keepAlive = leaseKeeper("b3", async () => true, 3_600_000, stopping.signal);
    await keepAlive();
    stopping.abort();
    await expect(keepAlive()).rejects.toBeInstanceOf(BatchWaitEndedError);
  });
});
