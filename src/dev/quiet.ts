/** Waiting for a chat to go quiet, so a piped transcript reads in order (see demo-chat). */

/** How long the bot must have shown nothing before the next piped line is read. */
export const QUIET_MS = 400;

/** When the chat last showed something, and a wait for it to be quiet. */
export class QuietWatch {
  #lastMs = 0;

  /** Something was shown now. */
  mark(): void {
    this.#lastMs = Date.now();
  }

  /**
   * Resolves once nothing was shown for QUIET_MS, when `stop()` says so, or at `deadlineMs`,
   * whichever comes first.
   */
  async wait(deadlineMs: number, stop: () => boolean): Promise<void> {
    for (;;) {
      const left = QUIET_MS - (Date.now() - this.#lastMs);
      if (left <= 0 || stop() || Date.now() >= deadlineMs) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(left, deadlineMs - Date.now())));
    }
  }

  /** Resolves once `busy()` is false, when `stop()` says so, or at `deadlineMs`. */
  async waitWhile(busy: () => boolean, deadlineMs: number, stop: () => boolean): Promise<void> {
    while (busy() && !stop() && Date.now() < deadlineMs) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, deadlineMs - Date.now())));
    }
  }
}
