/** Dialogs (expiring on the injected clock) and chosen languages, in process memory. */
import type { DialogState } from "../../model/dialog.js";
import { DialogStateSchema } from "../../model/dialog.js";
import { type Locale, LocaleSchema } from "../../model/locale.js";
import { checkInput } from "../schemas.js";
import type { SessionStore } from "../types.js";

export class MemorySessionStore implements SessionStore {
  readonly #dialogs = new Map<number, { dialog: DialogState; expiresAtMs: number }>();
  readonly #locales = new Map<number, Locale>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  async getDialog(chatId: number): Promise<DialogState | null> {
    const entry = this.#dialogs.get(chatId);
    if (!entry) return null;
    if (entry.expiresAtMs <= this.#now()) {
      this.#dialogs.delete(chatId);
      return null;
    }
    return structuredClone(entry.dialog);
  }

  async setDialog(chatId: number, dialog: DialogState, ttlSeconds: number): Promise<void> {
    const checked = checkInput(DialogStateSchema, dialog, "dialog");
    const ttlMs = Math.max(1, Math.ceil(ttlSeconds)) * 1000;
    this.#dialogs.set(chatId, {
      dialog: structuredClone(checked),
      expiresAtMs: this.#now() + ttlMs,
    });
  }

  async clearDialog(chatId: number): Promise<void> {
    this.#dialogs.delete(chatId);
  }

  async getLocale(userId: number): Promise<Locale | null> {
    return this.#locales.get(userId) ?? null;
  }

  async setLocale(userId: number, locale: Locale): Promise<void> {
    this.#locales.set(userId, checkInput(LocaleSchema, locale, "locale"));
  }
}
