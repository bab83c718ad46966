/**
 * Logs a background loop's failures once per outage: the first at error level, repeats
 * at debug, and the recovery at info. A Redis outage would otherwise write an error
 * every tick (dozens a second) and bury everything else.
 */
import type { Logger } from "../logger.js";

export class FailureStreakLog {
  readonly #log: Logger;
  readonly #what: string;
  #failures = 0;

  constructor(log: Logger, what: string) {
    this.#log = log;
    this.#what = what;
  }

  failed(error: unknown): void {
    this.#failures += 1;
    if (this.#failures === 1) this.#log.error({ err: error }, `${this.#what} failed`);
    else this.#log.debug({ err: error, failures: this.#failures }, `${this.#what} failed again`);
  }

  succeeded(): void {
    if (this.#failures > 0)
      this.#log.info({ failures: this.#failures }, `${this.#what} works again`);
    this.#failures = 0;
  }
}
