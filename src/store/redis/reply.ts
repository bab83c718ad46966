/** Small helpers for reading Redis replies safely. */

/** The reply of command `index` of a pipeline or transaction; its error is thrown. */
export function replyAt(replies: [Error | null, unknown][] | null, index: number): unknown {
  const entry = replies?.[index];
  if (!entry) throw new Error("Redis transaction was aborted");
  if (entry[0]) throw entry[0];
  return entry[1];
}
