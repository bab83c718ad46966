/**
 * The record of every API request the sandbox received, in order, for tests and benches
 * to count ("exactly one POST /disburse left").
 */
export interface RecordedRequest {
  method: string;
  /** Path without the query. */
  path: string;
  /** The query with its `?`, or "". */
  query: string;
  /** The body parsed as JSON, or `undefined` when empty, not JSON or too large. */
  body: unknown;
  /** `Date.now()` when the request was fully read. */
  atMs: number;
  /** The `X-API-Key` sent, if any (valid or not). */
  apiKey?: string;
}

export interface RequestFilter {
  /** Case-insensitive. */
  method?: string;
  /** Exact path (no query) or a pattern tested against it. */
  path?: string | RegExp;
}

function matches(request: RecordedRequest, filter: RequestFilter): boolean {
  if (filter.method !== undefined && filter.method.toUpperCase() !== request.method) return false;
  if (filter.path === undefined) return true;
  if (typeof filter.path === "string") return filter.path === request.path;
  filter.path.lastIndex = 0;
  return filter.path.test(request.path);
}

export class RequestLog {
  readonly #max: number;
  readonly #entries: RecordedRequest[] = [];

  /** Keeps at least the newest `max` requests (older ones are dropped in batches). */
  constructor(max: number) {
    this.#max = max;
  }

  get entries(): readonly RecordedRequest[] {
    return this.#entries;
  }

  record(request: RecordedRequest): void {
    this.#entries.push(request);
    // Drop in batches so a long bench does not pay a shift() per request.
    if (this.#entries.length > this.#max + 1000) {
      this.#entries.splice(0, this.#entries.length - this.#max);
    }
  }

  count(filter: RequestFilter = {}): number {
    return this.#entries.filter((request) => matches(request, filter)).length;
  }

  clear(): void {
    this.#entries.length = 0;
  }
}
