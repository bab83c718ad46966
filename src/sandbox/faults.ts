/**
 * Injected faults: the first queued fault matching a request (by method and path) is used
 * up and changes how that request is answered.
 *
 * For money tests a fault that answers for the API (status, hang, destroySocket) is applied
 * BEFORE the request is handled, so a faulted POST /collect or /disburse creates no
 * payment. Only a pure `delayMs` lets the request through. `afterHandling: true` is the
 * other case: the request is handled (the payment exists) and then its answer is delayed,
 * replaced or lost, like a gateway timing out after the API did its work.
 */
import { z } from "zod";

export interface Fault {
  /** Matches any method when absent (case-insensitive). */
  method?: string;
  /** Exact path (no query) or a pattern tested against it; any path when absent. */
  path?: string | RegExp;
  /** Answer with this status: `body` (a string is sent verbatim) or a default HttpError. */
  status?: number;
  body?: unknown;
  /** Adds `Retry-After` (seconds) to a `status` answer. */
  retryAfterSeconds?: number;
  /** Wait this long first, then go on (alone: the request is handled normally). */
  delayMs?: number;
  /** Never answer (the request is still recorded). `close()` drops the connection. */
  hang?: boolean;
  /** Read the whole request, then destroy the socket without answering. */
  destroySocket?: boolean;
  /** How many matching requests it applies to. Default 1; `Infinity` allowed. */
  times?: number;
  /** Apply after the request was handled normally (the payment exists). Default false. */
  afterHandling?: boolean;
}

/** A fault as posted to `/_sandbox/faults`: `path` is exact text, `times` a count or "infinite". */
export const FaultBodySchema = z
  .object({
    method: z
      .string()
      .regex(/^[A-Za-z]{1,16}$/, "must be an HTTP method")
      .optional(),
    path: z.string().startsWith("/", "must start with /").max(2048).optional(),
    status: z.number().int().min(100).max(599).optional(),
    body: z.unknown().optional(),
    retryAfterSeconds: z.number().int().min(0).max(86_400).optional(),
    delayMs: z.number().int().min(0).max(600_000).optional(),
    hang: z.boolean().optional(),
    destroySocket: z.boolean().optional(),
    times: z.union([z.number().int().positive(), z.literal("infinite")]).optional(),
    afterHandling: z.boolean().optional(),
  })
  .refine(
    (fault) =>
      fault.status !== undefined ||
      fault.delayMs !== undefined ||
      fault.hang === true ||
      fault.destroySocket === true,
    { message: "a fault needs one of status, delayMs, hang, destroySocket" },
  )
  .transform(
    ({ times, ...fault }): Fault => ({
      ...fault,
      times: times === "infinite" ? Number.POSITIVE_INFINITY : times,
    }),
  );

interface QueuedFault {
  fault: Fault;
  remaining: number;
}

function matches(fault: Fault, method: string, path: string): boolean {
  if (fault.method !== undefined && fault.method.toUpperCase() !== method.toUpperCase()) {
    return false;
  }
  if (fault.path === undefined) return true;
  if (typeof fault.path === "string") return fault.path === path;
  // A /g or /y pattern remembers where it stopped; start over for every request.
  fault.path.lastIndex = 0;
  return fault.path.test(path);
}

export class FaultQueue {
  #queue: QueuedFault[] = [];

  add(fault: Fault): void {
    const remaining = fault.times ?? 1;
    if (!(remaining > 0)) throw new RangeError(`fault.times must be > 0, got ${remaining}`);
    this.#queue.push({ fault: { ...fault }, remaining });
  }

  /** Uses up and returns the first fault matching the request, if any. */
  take(method: string, path: string): Fault | undefined {
    const index = this.#queue.findIndex((queued) => matches(queued.fault, method, path));
    const queued = this.#queue[index];
    if (!queued) return undefined;
    queued.remaining -= 1;
    if (queued.remaining <= 0) this.#queue.splice(index, 1);
    return queued.fault;
  }

  get size(): number {
    return this.#queue.length;
  }

  clear(): void {
    this.#queue = [];
  }
}
