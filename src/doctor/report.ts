/**
 * What one check of `npm run doctor` found, and how it is printed: one line per check, a
 * mark (✓ held, ! a warning for what is optional or merely odd, ✗ failed), the check's
 * name, a short fact, and for a failure (or a warning worth acting on) what to do.
 */

export type CheckStatus = "ok" | "warn" | "fail";

export interface CheckResult {
  status: CheckStatus;
  /** A few words: "telegram bot", "redis memory policy". */
  name: string;
  /** What was found, without secrets. */
  fact: string;
  /** What to do about it; required for a failure. */
  fix?: string;
}

export const ok = (name: string, fact: string): CheckResult => ({ status: "ok", name, fact });

export const warn = (name: string, fact: string, fix?: string): CheckResult =>
  fix === undefined ? { status: "warn", name, fact } : { status: "warn", name, fact, fix };

export const fail = (name: string, fact: string, fix: string): CheckResult => ({
  status: "fail",
  name,
  fact,
  fix,
});

const MARKS: Readonly<Record<CheckStatus, string>> = { ok: "✓", warn: "!", fail: "✗" };

/** Names are padded to this width so the facts line up. */
const NAME_WIDTH = 22;

/** `✗ redis memory policy     allkeys-lru … fix: …`, on one line. */
export function formatResult(result: CheckResult): string {
  const fix = result.fix === undefined ? "" : ` fix: ${result.fix}`;
  const fact = result.fact.replace(/\s+/g, " ").trim();
  return `${MARKS[result.status]} ${result.name.padEnd(NAME_WIDTH)} ${fact}${fix}`;
}

/** The last line: how many checks held, warned and failed. */
export function summarize(results: readonly CheckResult[]): string {
  const count = (status: CheckStatus) => results.filter((r) => r.status === status).length;
  const failed = count("fail");
  const warned = count("warn");
  const verdict = failed > 0 ? "not ready: fix the ✗ lines and run it again" : "ready";
  return `${results.length} checks: ${count("ok")} passed, ${warned} warning${warned === 1 ? "" : "s"}, ${failed} failed (${verdict})`;
}

/** 0 when nothing failed (warnings allowed), 1 otherwise. */
export function exitCodeOf(results: readonly CheckResult[]): 0 | 1 {
  return results.some((result) => result.status === "fail") ? 1 : 0;
}

/**
 * `work`, or a rejection naming `what` once `timeoutMs` has passed: every network check
 * has a deadline of its own on top of its client's, so the doctor never hangs. The timer
 * is cleared whatever happens.
 */
export async function withinDeadline<T>(
  what: string,
  timeoutMs: number,
  work: Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new DeadlineError(`${what} did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

export class DeadlineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeadlineError";
  }
}

/** The innermost cause's message: "connect ECONNREFUSED 127.0.0.1:6399". */
export function reasonOf(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
