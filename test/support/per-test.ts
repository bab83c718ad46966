import { afterEach, beforeEach } from "vitest";

/**
 * Makes a fresh value with `start` before each test of the enclosing describe and ends it
 * with `end` after the test. Returns a getter for the running test's value (it throws
 * outside a test, where there is none).
 */
export function perTest<T>(start: () => Promise<T>, end: (value: T) => Promise<void>): () => T {
  let current: T | undefined;
  beforeEach(async () => {
    current = await start();
  });
  afterEach(async () => {
    const ending = current;
    current = undefined;
    if (ending !== undefined) await end(ending);
  });
  return () => {
    if (current === undefined) throw new Error("this exists only while a test runs");
    return current;
  };
}
