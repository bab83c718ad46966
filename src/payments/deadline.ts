/**
 * One attempt's deadline, as the signal undici aborts the request with. undici takes an
 * EventEmitter with `aborted` and `reason` as well as an AbortSignal; an AbortController is
 * an EventTarget, whose construction and listeners cost several microseconds per request,
 * a fifth of everything the client adds over a bare undici request (bench/client-overhead).
 */
import { EventEmitter } from "node:events";
import { AttemptDeadlineError } from "./retry.js";

export class AttemptDeadline extends EventEmitter {
  /** Read by undici: set once the deadline passed. */
  aborted = false;
  /** What the request fails with once aborted. */
  reason: AttemptDeadlineError | undefined = undefined;
  readonly #timer: NodeJS.Timeout;

  /** Starts the clock: after `timeoutMs` the request is aborted with AttemptDeadlineError. */
  constructor(timeoutMs: number) {
    super();
    this.#timer = setTimeout(() => {
      this.aborted = true;
      this.reason = new AttemptDeadlineError(timeoutMs);
      this.emit("abort");
    }, timeoutMs);
  }

  /** Stops the clock (the attempt ended, whatever its end). */
  clear(): void {
    clearTimeout(this.#timer);
  }
}
