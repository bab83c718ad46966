/**
 * What the bot keeps of each conversation, written through one step so that no feature
 * writes to a store itself: the language a person chose with /lang, the /pay or /collect
 * dialog open in a chat (asked a field at a time, gone after its time to live), and the
 * button presses each person made lately (a flood of presses is refused). The name and
 * language Telegram gives a staff member are StaffNames' (people.ts).
 */
import type { DialogState } from "../model/dialog.js";
import type { Locale } from "../model/locale.js";
import type { StepContext } from "./types.js";

/** A press counter: `limit` presses of one person in a window of `windowMs`. */
export interface PressCounter {
  name: string;
  limit: number;
  windowMs: number;
}

export class Sessions {
  readonly #context: StepContext;

  constructor(context: StepContext) {
    this.#context = context;
  }

  /** The language `userId` chose with /lang; it wins over their Telegram app's. */
  async chooseLanguage(userId: number, locale: Locale): Promise<void> {
    await this.#context.stores.sessions.setLocale(userId, locale);
  }

  /** Opens (or moves on) the dialog of `chatId`, forgotten after `ttlSeconds`. */
  async openDialog(chatId: number, dialog: DialogState, ttlSeconds: number): Promise<void> {
    await this.#context.stores.sessions.setDialog(chatId, dialog, ttlSeconds);
  }

  /** Ends the dialog of `chatId`, if one is open. */
  async closeDialog(chatId: number): Promise<void> {
    await this.#context.stores.sessions.clearDialog(chatId);
  }

  /**
   * Counts one button press of `userId`: false once they made `limit` in `windowMs` (every
   * replica counts in the same place).
   */
  pressAllowed(userId: number, limit: number, windowMs: number): Promise<boolean> {
    const press = this.pressCounter(userId, limit, windowMs);
    return this.#context.stores.throttles.take(press.name, limit, windowMs);
  }

  /** The counter `pressAllowed` counts on, for a step that counts a press itself. */
  pressCounter(userId: number, limit: number, windowMs: number): PressCounter {
    return { name: `press:${userId}`, limit, windowMs };
  }
}
