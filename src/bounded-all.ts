/**
 * Runs `work` over `items` with at most `limit` at a time, in the items' order, and answers
 * every outcome in that order (like `Promise.allSettled`). Once one fails, the items not yet
 * begun are left out (answered as skipped) so a start that is doomed stops early; those
 * already running are awaited, so whoever called can undo what they did.
 */
export type Outcome<T> =
  | { status: "fulfilled"; value: T }
  | { status: "rejected"; reason: unknown }
  | { status: "skipped" };

export async function allBounded<I, T>(
  items: readonly I[],
  limit: number,
  work: (item: I) => Promise<T>,
): Promise<Outcome<T>[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError("limit must be 1 or more");
  const outcomes: Outcome<T>[] = items.map(() => ({ status: "skipped" }));
  const queue = [...items.entries()];
  let failed = false;
  const worker = async () => {
    for (let entry = queue.shift(); entry && !failed; entry = queue.shift()) {
      const [index, item] = entry;
      try {
        outcomes[index] = { status: "fulfilled", value: await work(item) };
      } catch (reason) {
        failed = true;
        outcomes[index] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return outcomes;
}
