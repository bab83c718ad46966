import { describe, expect, it } from "vitest";
import { LimiterUnavailableError } from "../../../src/payments/errors.js";
import { isStoreUnavailableError, StoreUnavailableError } from "../../../src/store/errors.js";

describe("isStoreUnavailableError", () => {
  it("reads Redis refusing writes, or not answering, as the store being unavailable", () => {
    for (const message of [
      "READONLY You can't write against a read only replica.",
      "OOM command not allowed when used memory > 'maxmemory'.",
      "Connection is closed.",
      "Stream isn't writeable and enableOfflineQueue options is false",
    ]) {
      expect(isStoreUnavailableError(new Error(message))).toBe(true);
    }
    expect(isStoreUnavailableError(new StoreUnavailableError("the replica is gone"))).toBe(true);
    expect(isStoreUnavailableError(new Error("ERR wrong number of arguments"))).toBe(false);
    expect(isStoreUnavailableError("READONLY")).toBe(false);
  });

  it("follows the cause: a rate limiter that failed on a read-only Redis is the store's failure", () => {
    const readOnly = new Error("READONLY You can't write against a read only replica.");
    expect(isStoreUnavailableError(new LimiterUnavailableError("getAvailability", readOnly))).toBe(
      true,
    );
    const other = new LimiterUnavailableError("getAvailability", new Error("script error"));
    expect(isStoreUnavailableError(other)).toBe(false);
  });
});
