/**
 * Keeps a late "Pending" off a prompt whose payment already settled, without reading Redis
 * again after Confirm's edit. A Confirm watches its prompt from its claim until its own last
 * edit has landed; the notifier, editing a prompt to its final status, notes that view here.
 * - The Confirm ran in this process and is still editing: it puts the final view back after
 *   its own edit (whichever of the two Telegram applied last).
 * - It ran here and is done: its edits landed before, nothing to do.
 * - It is not known here (another replica's Confirm, or one from before a restart) and the
 *   payout was sent lately: the notifier edits the final status in once more after the
 *   longest a Confirm's edits can take, so that a late "Pending" from there does not stay.
 */
import { SIDE_CALL_MS } from "./best-effort.js";
import { DEFAULT_MAX_WAIT_MS } from "./pacing.js";
import { TELEGRAM_CALL_TIMEOUT_MS } from "./transport.js";

/**
 * The longest a Confirm's edits can still be on their way once the payment can settle (its
 * answer is recorded first): "Sending…" (a side call) then the outcome (its turn in the
 * pacer, then one Telegram call), with a margin for clocks and queues.
 */
export const CONFIRM_EDITS_MAX_MS =
  SIDE_CALL_MS + DEFAULT_MAX_WAIT_MS + TELEGRAM_CALL_TIMEOUT_MS + 5_000;

/** A payout sent longer ago than this has no Confirm still editing its prompt. */
const RECENT_SEND_MS = 10 * 60_000;
/** Confirms remembered as done here; past it the oldest go (costing one extra edit at worst). */
const MAX_DONE = 10_000;

/** Where the Confirm that edits a prompt runs, as this process knows it. */
export type ConfirmEdits = "in_flight_here" | "done_here" | "unknown";

export class PromptWatch {
  /** Prompts whose Confirm is editing them here → the final view noted meanwhile. */
  readonly #inFlight = new Map<string, { final?: unknown }>();
  /** Prompts whose Confirm finished here → when (oldest first). */
  readonly #done = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Confirm is about to edit this prompt (from its claim until `release`). */
  watch(chatId: number, messageId: number): void {
    this.#inFlight.set(keyOf(chatId, messageId), {});
  }

  /** Confirm's own edits have landed: the final view noted meanwhile, if any. */
  release<View>(chatId: number, messageId: number): View | undefined {
    const key = keyOf(chatId, messageId);
    const watched = this.#inFlight.get(key);
    this.#inFlight.delete(key);
    this.#remember(key);
    return watched?.final as View | undefined;
  }

  /**
   * Runs `edits` (a Confirm's edits of its prompt, `messageId` undefined: none) watched, and
   * answers their result with the final view the notifier edited in meanwhile, to put back.
   */
  async editing<T, View>(
    chatId: number,
    messageId: number | undefined,
    edits: () => Promise<T>,
  ): Promise<{ result: T; settled: View | undefined }> {
    if (messageId === undefined) return { result: await edits(), settled: undefined };
    this.watch(chatId, messageId);
    let result: T;
    try {
      result = await edits();
    } catch (error) {
      this.release(chatId, messageId);
      throw error;
    }
    return { result, settled: this.release<View>(chatId, messageId) };
  }

  /** The notifier edits `view` (a final status) into a prompt: what this process knows of it. */
  noteFinal(chatId: number, messageId: number, view: unknown): ConfirmEdits {
    const key = keyOf(chatId, messageId);
    const watched = this.#inFlight.get(key);
    if (watched) {
      watched.final = view;
      return "in_flight_here";
    }
    return this.#done.has(key) ? "done_here" : "unknown";
  }

  /**
   * Whether a Confirm elsewhere may still be editing the prompt of `payout`: one its
   * initiator's Confirm sent lately (an approved payout's prompt is not edited by whoever
   * sent it: the approver's card is).
   */
  mayBeEditedElsewhere(payout: { submittedAtMs?: number; approvedBy?: number }): boolean {
    const { submittedAtMs } = payout;
    if (submittedAtMs === undefined || payout.approvedBy !== undefined) return false;
    return this.#now() - submittedAtMs < RECENT_SEND_MS;
  }

  #remember(key: string): void {
    const nowMs = this.#now();
    this.#done.delete(key);
    this.#done.set(key, nowMs);
    for (const [oldest, atMs] of this.#done) {
      if (this.#done.size <= MAX_DONE && nowMs - atMs < RECENT_SEND_MS) break;
      this.#done.delete(oldest);
    }
  }
}

function keyOf(chatId: number, messageId: number): string {
  return `${chatId}:${messageId}`;
}
