/**
 * How many batch files one person may have read: one at a time, and a few a minute. A file
 * costs a download and a parse however little it holds, so a person who sends one after
 * another (by mistake or not) is told to wait instead of keeping the bot busy. Counted per
 * process: updates reach one replica at a time (the poller's lease, or the webhook's).
 */

export type UploadTurn =
  | { ok: true /** Call once the file is read (whatever came of it). */; done: () => void }
  | { ok: false; reason: "reading" }
  | { ok: false; reason: "too_many"; perMinute: number };

const MINUTE_MS = 60_000;

export class UploadLimiter {
  readonly #perMinute: number;
  readonly #now: () => number;
  readonly #reading = new Set<number>();
  /** When each person's recent files were started, oldest first. */
  readonly #started = new Map<number, number[]>();

  constructor(perMinute: number, now: () => number) {
    this.#perMinute = perMinute;
    this.#now = now;
  }

  /** Takes a turn for `userId`'s next file, or says why not. */
  take(userId: number): UploadTurn {
    if (this.#reading.has(userId)) return { ok: false, reason: "reading" };
    const nowMs = this.#now();
    const recent = (this.#started.get(userId) ?? []).filter((at) => nowMs - at < MINUTE_MS);
    if (recent.length >= this.#perMinute) {
      this.#started.set(userId, recent);
      return { ok: false, reason: "too_many", perMinute: this.#perMinute };
    }
    recent.push(nowMs);
    this.#started.set(userId, recent);
    this.#reading.add(userId);
    this.#forgetOld(nowMs);
    return { ok: true, done: () => this.#reading.delete(userId) };
  }

  /** Drops the people whose last file is over a minute old, so the map stays small. */
  #forgetOld(nowMs: number): void {
    for (const [userId, started] of this.#started) {
      const last = started.at(-1);
      if (last === undefined || nowMs - last >= MINUTE_MS) this.#started.delete(userId);
    }
  }
}
