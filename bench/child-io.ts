/**
 * The child's side of the IPC channel (child.ts is the parent's): report to the parent,
 * and fail loudly. Kept apart so a child loads nothing it does not need.
 */

/** For children: sends a message to the parent, if there is one. */
export function tellParent(message: Record<string, unknown>): void {
  process.send?.(message);
}

/** For children: reports a failure to the parent, then exits with 1. */
export function failChild(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`bench child ${process.argv[1] ?? ""}: ${message}\n`);
  process.exitCode = 1;
  // Exit once the report is on its way; the timer covers a parent that went away.
  setTimeout(() => process.exit(1), 1000).unref();
  if (process.send) process.send({ type: "error", message }, () => process.exit(1));
  else process.exit(1);
}
