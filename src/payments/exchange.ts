/**
 * One HTTP exchange of the client, sent with undici's `dispatch` and read whole, under the
 * attempt's deadline (connection to last byte of the answer).
 *
 * Why not `pool.request` with an abort signal and a timer per attempt: the signal, its
 * listener, the timer, the response stream and its `text()` reader were two thirds of what
 * the client cost over a bare undici request (bench/client-overhead, docs/performance.md).
 * Here an exchange is one object: the handler undici calls, the promise its caller awaits,
 * and its place in the client's list of deadlines. Every attempt of a client has the same
 * timeout, so deadlines come due in the order attempts start: the list is kept in that
 * order, and one timer (for the first deadline) serves them all. An attempt past its
 * deadline fails at once with AttemptDeadlineError, whatever undici is doing with it, and
 * undici is told to abort it (before it is written, if it has not left yet).
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Dispatcher, Pool } from "undici";
import type { RawResponse } from "./client-response.js";
import { AttemptDeadlineError } from "./retry.js";

/** What is sent: the path is already encoded, the headers already built. */
export interface ExchangeRequest {
  method: "GET" | "POST";
  path: string;
  headers: Readonly<Record<string, string>>;
  body: string | undefined;
}

/** The client's attempts in flight, first deadline first; one timer for the first. */
export class Deadlines {
  readonly timeoutMs: number;
  /** Sentinel of a circular list: `head.next` is the first deadline, `head.previous` the last. */
  readonly #head: Linked = { previous: undefined, next: undefined };
  #timer: NodeJS.Timeout | undefined;

  /** `timeoutMs`: the deadline of every attempt, from its start. */
  constructor(timeoutMs: number) {
    this.timeoutMs = timeoutMs;
    this.#head.previous = this.#head;
    this.#head.next = this.#head;
  }

  /** Puts `exchange` last (its deadline is the latest) and makes sure a timer will come. */
  add(exchange: Exchange): void {
    const last = this.#head.previous ?? this.#head;
    exchange.previous = last;
    exchange.next = this.#head;
    last.next = exchange;
    this.#head.previous = exchange;
    if (this.#timer === undefined) this.#arm(exchange.atMs);
  }

  /** Takes `exchange` out (it ended); the timer stops when nothing is left to time. */
  remove(exchange: Exchange): void {
    const { previous, next } = exchange;
    if (!previous || !next) return;
    previous.next = next;
    next.previous = previous;
    exchange.previous = undefined;
    exchange.next = undefined;
    if (this.#head.next === this.#head && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #arm(atMs: number): void {
    // One timer at most, even if an attempt were added while the last one fired.
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    // Rounded up (and #fire looks at the clock again): no attempt ends before its deadline.
    const delayMs = Math.max(1, Math.ceil(atMs - performance.now()));
    this.#timer = setTimeout(() => this.#fire(), delayMs);
  }

  /** Ends every attempt past its deadline, then waits for the next deadline, if any. */
  #fire(): void {
    this.#timer = undefined;
    const nowMs = performance.now();
    for (;;) {
      const first = this.#head.next;
      if (!(first instanceof Exchange)) return;
      if (first.atMs > nowMs) {
        this.#arm(first.atMs);
        return;
      }
      // Takes it out of the list itself.
      first.expire();
    }
  }
}

interface Linked {
  previous: Linked | undefined;
  next: Linked | undefined;
}

/** UTF-8 text of the body as undici's `body.text()` reads it: a leading BOM is skipped. */
function decode(chunks: Buffer[], length: number): string {
  if (length === 0) return "";
  const buffer = chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, length);
  const bom = buffer.length > 2 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf;
  return buffer.toString("utf8", bom ? 3 : 0);
}

/** One request and its answer, as undici's dispatch handler; settles once. */
class Exchange implements Dispatcher.DispatchHandler, Linked {
  previous: Linked | undefined = undefined;
  next: Linked | undefined = undefined;
  /** performance.now() time past which the attempt fails. */
  readonly atMs: number;
  readonly #deadlines: Deadlines;
  readonly #resolve: (response: RawResponse) => void;
  readonly #reject: (error: unknown) => void;
  #settled = false;
  /** Set once the deadline passed: undici is told to abort with it whenever it starts. */
  #expired: AttemptDeadlineError | undefined = undefined;
  #controller: Dispatcher.DispatchController | undefined = undefined;
  #statusCode = 0;
  #headers: IncomingHttpHeaders = {};
  #chunks: Buffer[] = [];
  #length = 0;

  constructor(
    deadlines: Deadlines,
    resolve: (response: RawResponse) => void,
    reject: (error: unknown) => void,
  ) {
    this.#deadlines = deadlines;
    this.#resolve = resolve;
    this.#reject = reject;
    this.atMs = performance.now() + deadlines.timeoutMs;
    deadlines.add(this);
  }

  /** The deadline passed: the caller hears it now, and undici drops the request. */
  expire(): void {
    // Out of the list whatever else happens: Deadlines' loop must not see it again.
    this.#deadlines.remove(this);
    const error = new AttemptDeadlineError(this.#deadlines.timeoutMs);
    this.#expired = error;
    this.#fail(error);
    this.#controller?.abort(error);
  }

  // May come again for the same request: undici resends a GET whose kept-alive socket died.
  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#expired) controller.abort(this.#expired);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    // 1xx answers are interim: the real one follows.
    if (statusCode < 200) return;
    this.#statusCode = statusCode;
    this.#headers = headers;
    this.#chunks = [];
    this.#length = 0;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#chunks.push(chunk);
    this.#length += chunk.length;
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#deadlines.remove(this);
    const text = decode(this.#chunks, this.#length);
    this.#chunks = [];
    this.#resolve({ statusCode: this.#statusCode, headers: this.#headers, text });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#fail(error);
  }

  #fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#deadlines.remove(this);
    this.#chunks = [];
    this.#reject(error);
  }
}

/**
 * Sends `request` on `pool` and reads the whole answer, failing with AttemptDeadlineError
 * once `deadlines.timeoutMs` have passed, or with undici's error.
 */
export function exchange(
  pool: Pool,
  deadlines: Deadlines,
  request: ExchangeRequest,
): Promise<RawResponse> {
  return new Promise<RawResponse>((resolve, reject) => {
    const handler = new Exchange(deadlines, resolve, reject);
    pool.dispatch(
      {
        method: request.method,
        path: request.path,
        headers: request.headers,
        body: request.body ?? null,
      },
      handler,
    );
  });
}
