/**
 * Saved recipients (the merchant's address book): what `/save`, `/recipients`, `/forget`
 * and the **Save recipient** button do, and the one function that turns what someone typed
 * where a number goes (`/pay jean 5000`, the /pay dialog, /collect, a batch row, a
 * schedule) into a number: `resolveRecipientArg`.
 *
 * A /save is a prompt like /pay's: the registered name is looked up, the prompt waits for
 * its initiator's Save until it expires, and Save re-checks the role and writes with a
 * compare-and-set on the entry the prompt showed (someone else's change meanwhile is
 * refused, never overwritten).
 */
import { maskPhone } from "../logger.js";
import { actorFields, SYSTEM_ACTOR, staffActor } from "../model/audit.js";
import type { TelecomOperator } from "../model/payment-terms.js";
import type { Payout } from "../model/payout.js";
import { type OperatorHint, type PhoneProblem, parsePhone } from "../model/phone.js";
import {
  type AliasAsk,
  type AliasProblem,
  aliasKey,
  type ListedRecipient,
  parseAlias,
  type Recipient,
  type SavePrompt,
} from "../model/recipient.js";
import { cleanName } from "../model/text.js";
import {
  LimiterUnavailableError,
  PaymentApiError,
  PaymentClientError,
} from "../payments/errors.js";
import type { RecipientStore } from "../store/recipient-store.js";
import { randomId } from "./ids.js";
import { type Asker, may } from "./policy.js";
import type { StepContext } from "./types.js";

/** What a recipient argument (a number or an alias) turned out to be. */
export type RecipientArg =
  | { outcome: "number"; phone: string; operator: TelecomOperator }
  | {
      outcome: "alias";
      phone: string;
      operator: TelecomOperator;
      /** As it was saved. */
      alias: string;
      /** The name saved with it, and when it was saved. */
      savedName: string;
      savedAt: number;
    }
  | { outcome: "unknown_alias"; alias: string }
  | { outcome: "invalid"; what: "phone"; problem: PhoneProblem; operator?: OperatorHint }
  | { outcome: "invalid"; what: "alias"; problem: AliasProblem };

/**
 * Text with a letter in it, written only with an alias's characters, is an alias (aliases
 * always have a letter); anything else is read as a number (`<b>670…` is a bad number).
 */
export function looksLikeAlias(text: string): boolean {
  const trimmed = text.trim().normalize("NFC");
  return /\p{L}/u.test(trimmed) && /^[\p{L}\p{M}\p{Nd}_.-]+$/u.test(trimmed);
}

/**
 * Turns `text` into the number to pay: a number as it is, an alias through the address
 * book. Never calls the Payment API (the caller looks the registered name up afresh).
 */
export async function resolveRecipientArg(
  deps: { recipients: RecipientStore },
  text: string,
): Promise<RecipientArg> {
  if (!looksLikeAlias(text)) {
    const phone = parsePhone(text);
    if (phone.ok) return { outcome: "number", phone: phone.phone, operator: phone.operator };
    return {
      outcome: "invalid",
      what: "phone",
      problem: phone.problem,
      ...(phone.operator ? { operator: phone.operator } : {}),
    };
  }
  const alias = parseAlias(text);
  if (!alias.ok) return { outcome: "invalid", what: "alias", problem: alias.problem };
  const saved = await deps.recipients.get(alias.key);
  if (!saved) return { outcome: "unknown_alias", alias: alias.alias };
  return {
    outcome: "alias",
    phone: saved.phone,
    operator: saved.operator,
    alias: saved.alias,
    savedName: saved.registeredName,
    savedAt: saved.savedAtMs,
  };
}

export type PrepareSaveResult =
  | { outcome: "prompt"; token: string; prompt: SavePrompt }
  /** The alias already names this number with this name: nothing to do. */
  | { outcome: "unchanged"; recipient: Recipient }
  | { outcome: "forbidden" }
  /** The alias is someone else's: only its saver or an admin may replace it (as forget). */
  | { outcome: "not_theirs"; recipient: Recipient }
  | { outcome: "bad_alias"; problem: AliasProblem }
  | { outcome: "bad_phone"; problem: PhoneProblem; operator?: OperatorHint }
  | { outcome: "no_account"; phone: string }
  | { outcome: "api_error"; error: PaymentClientError }
  | { outcome: "full"; max: number };

export type SaveResult =
  | { outcome: "saved"; recipient: Recipient; replaced?: Recipient }
  | { outcome: "not_found" }
  | { outcome: "forbidden" }
  | { outcome: "expired" }
  /** Someone changed or removed the alias since the prompt: nothing written. */
  | { outcome: "changed"; current: Recipient | null }
  | { outcome: "full"; max: number };

export type ForgetResult =
  | { outcome: "forgotten"; recipient: Recipient }
  | { outcome: "bad_alias"; problem: AliasProblem }
  | { outcome: "unknown_alias"; alias: string }
  /** Only its saver (while they may pay) or an admin. */
  | { outcome: "forbidden"; recipient: Recipient }
  | { outcome: "changed" };

export type AskResult =
  | { outcome: "ask"; phone: string; name: string }
  | { outcome: "already_saved"; phone: string }
  | { outcome: "forbidden" }
  | { outcome: "not_found" };

export interface RecipientsOptions {
  /** How long a /save prompt (and a question for an alias) waits, in ms. */
  promptTtlMs: number;
  /** The most aliases kept (MAX_RECIPIENTS). */
  maxEntries: number;
}

/** How long a /recipients search's page buttons work. */
const SEARCH_TTL_MS = 3_600_000;

/** The id of the question for an alias asked in message `messageId` of `chatId`. */
function askId(chatId: number, messageId: number): string {
  return `ask:${chatId}:${messageId}`;
}

export class Recipients {
  readonly #context: StepContext;
  readonly #options: RecipientsOptions;

  constructor(context: StepContext, options: RecipientsOptions) {
    this.#context = context;
    this.#options = options;
  }

  /** How long a /save prompt and a question for an alias wait, in ms. */
  get promptTtlMs(): number {
    return this.#options.promptTtlMs;
  }

  get #store(): RecipientStore {
    return this.#context.stores.recipients;
  }

  /** What `text` names: a number, or an alias of the address book (see resolveRecipientArg). */
  resolve(text: string): Promise<RecipientArg> {
    return resolveRecipientArg({ recipients: this.#store }, text);
  }

  /**
   * `/save <alias> <number>`: checks both, looks the registered name up, and keeps a prompt
   * for the initiator's Save (with the entry it would replace). Nothing is saved yet.
   */
  async prepareSave(input: {
    alias: string;
    phone: string;
    asker: Asker;
    chatId: number;
  }): Promise<PrepareSaveResult> {
    const { asker } = input;
    if (asker === null || !may(asker, "pay")) return { outcome: "forbidden" };
    const alias = parseAlias(input.alias);
    if (!alias.ok) return { outcome: "bad_alias", problem: alias.problem };
    const phone = parsePhone(input.phone);
    if (!phone.ok) {
      return {
        outcome: "bad_phone",
        problem: phone.problem,
        ...(phone.operator ? { operator: phone.operator } : {}),
      };
    }
    const [name, existing, count] = await Promise.all([
      this.#registeredName(phone.phone),
      this.#store.get(alias.key),
      this.#countIfNew(alias.key),
    ]);
    if (typeof name !== "string") return name;
    if (existing?.phone === phone.phone && existing.registeredName === name) {
      return { outcome: "unchanged", recipient: existing };
    }
    if (existing && !mayChange(asker, existing)) {
      return { outcome: "not_theirs", recipient: existing };
    }
    if (!existing && count >= this.#options.maxEntries) {
      return { outcome: "full", max: this.#options.maxEntries };
    }
    const prompt: SavePrompt = {
      kind: "save",
      alias: alias.alias,
      phone: phone.phone,
      operator: phone.operator,
      registeredName: name,
      initiatorId: asker.userId,
      chatId: input.chatId,
      expiresAtMs: this.#context.now() + this.#options.promptTtlMs,
      ...(existing ? { replaces: existing } : {}),
    };
    const token = randomId(12);
    await this.#store.putPending(token, prompt, this.#options.promptTtlMs);
    return { outcome: "prompt", token, prompt };
  }

  /**
   * Save on a /save prompt: only its initiator, while they may still pay and the prompt
   * has not expired; written only if the alias is still as the prompt showed it.
   */
  async save(token: string, asker: Asker): Promise<SaveResult> {
    const pending = await this.#store.getPending(token);
    if (pending?.kind !== "save") return { outcome: "not_found" };
    if (asker === null || asker.userId !== pending.initiatorId || !may(asker, "pay")) {
      return { outcome: "forbidden" };
    }
    if (this.#context.now() > pending.expiresAtMs) {
      await this.#store.takePending(token);
      return { outcome: "expired" };
    }
    // Taken once: a double tap, or a second replica, finds nothing left to save.
    const prompt = await this.#store.takePending(token);
    if (prompt?.kind !== "save") return { outcome: "not_found" };
    const replaced = prompt.replaces;
    // Checked again at the press: an admin demoted since the prompt replaces only their own.
    if (replaced && !mayChange(asker, replaced)) return { outcome: "forbidden" };
    const recipient: Recipient = {
      alias: prompt.alias,
      phone: prompt.phone,
      operator: prompt.operator,
      registeredName: prompt.registeredName,
      savedBy: asker.userId,
      savedAtMs: this.#context.now(),
      rev: (replaced?.rev ?? 0) + 1,
    };
    const key = aliasKey(prompt.alias);
    const written = await this.#store.put(key, recipient, replaced?.rev ?? 0);
    if (written.outcome === "conflict") return { outcome: "changed", current: written.current };
    if (written.outcome === "full") return { outcome: "full", max: this.#options.maxEntries };
    await this.#context.stores.audit.record({
      atMs: recipient.savedAtMs,
      ...actorOf(asker),
      action: "recipient_saved",
      phone: maskPhone(recipient.phone),
      details: {
        alias: recipient.alias,
        name: recipient.registeredName,
        ...(replaced ? { replacedPhone: maskPhone(replaced.phone) } : {}),
      },
    });
    // The alias is often a person's name: like the number, it stays out of the logs.
    this.#context.log.info(
      { phone: maskPhone(recipient.phone), replaced: replaced !== undefined },
      "recipient saved",
    );
    return { outcome: "saved", recipient, ...(replaced ? { replaced } : {}) };
  }

  /** Cancel on a /save prompt: only its initiator. */
  async cancelSave(
    token: string,
    asker: Asker,
  ): Promise<{ outcome: "cancelled" | "not_found" | "forbidden" }> {
    const pending = await this.#store.getPending(token);
    if (pending?.kind !== "save") return { outcome: "not_found" };
    if (asker === null || asker.userId !== pending.initiatorId) return { outcome: "forbidden" };
    return (await this.#store.takePending(token))
      ? { outcome: "cancelled" }
      : { outcome: "not_found" };
  }

  /** `/forget <alias>`: its saver (while they may pay) or an admin; audited. */
  async forget(aliasText: string, asker: Asker): Promise<ForgetResult> {
    const alias = parseAlias(aliasText);
    if (!alias.ok) return { outcome: "bad_alias", problem: alias.problem };
    const recipient = await this.#store.get(alias.key);
    if (!recipient) return { outcome: "unknown_alias", alias: alias.alias };
    if (asker === null || !mayChange(asker, recipient)) return { outcome: "forbidden", recipient };
    const removed = await this.#store.remove(alias.key, recipient.rev);
    if (removed.outcome !== "written") return { outcome: "changed" };
    await this.#context.stores.audit.record({
      atMs: this.#context.now(),
      ...actorOf(asker),
      action: "recipient_forgotten",
      phone: maskPhone(recipient.phone),
      details: { alias: recipient.alias, name: recipient.registeredName },
    });
    return { outcome: "forgotten", recipient };
  }

  /**
   * The address book, sorted by alias, keeping the entries whose alias or registered name
   * holds every one of `words` (without regard to case or accents).
   */
  async list(words: readonly string[] = []): Promise<ListedRecipient[]> {
    const wanted = words.map(aliasKey).filter((word) => word !== "");
    const all = await this.#store.list();
    return all
      .filter((entry) => {
        const haystack = `${aliasKey(entry.alias)} ${aliasKey(entry.registeredName)}`;
        return wanted.every((word) => haystack.includes(word));
      })
      .sort((a, b) => aliasKey(a.alias).localeCompare(aliasKey(b.alias)));
  }

  /**
   * After a payout succeeded, when it was made by an alias whose saved name differed from
   * the name registered now (the prompt said so and the payer confirmed), the saved name
   * becomes the new one. (Its number's last-paid time was noted by the settling move itself:
   * Settlement's `notePaid`.) Never throws: the payout is settled whatever happens here.
   */
  async notePaid(payout: Payout): Promise<void> {
    if (payout.state !== "success") return;
    try {
      if (payout.recipientAlias !== undefined) await this.#rename(payout);
    } catch (error) {
      this.#context.log.warn(
        { err: error, payoutId: payout.id },
        "could not note a recipient paid",
      );
    }
  }

  /**
   * **Save recipient** under a paid payout's message: allowed to whoever may pay and sees
   * the payout (its payer, or one who sees everyone's), while the number is not saved.
   */
  async checkAsk(payoutId: string, asker: Asker): Promise<AskResult> {
    const payout = await this.#context.stores.payouts.get(payoutId);
    if (payout?.state !== "success") return { outcome: "not_found" };
    if (asker === null || !may(asker, "pay")) return { outcome: "forbidden" };
    if (payout.initiatorId !== asker.userId && !may(asker, "see_everyone")) {
      return { outcome: "forbidden" };
    }
    if (await this.#store.isSaved(payout.phone)) {
      return { outcome: "already_saved", phone: payout.phone };
    }
    return { outcome: "ask", phone: payout.phone, name: payout.recipientName };
  }

  /**
   * Keeps a /recipients search's words for its page buttons (which carry only the token
   * answered), for an hour.
   */
  async keepSearch(words: readonly string[]): Promise<string> {
    const token = randomId(12);
    await this.#store.putPending(token, { kind: "search", words: [...words] }, SEARCH_TTL_MS);
    return token;
  }

  /** The words of the search kept under `token`, or null when it is gone. */
  async searchWords(token: string): Promise<string[] | null> {
    const search = await this.#store.getPending(token);
    return search?.kind === "search" ? search.words : null;
  }

  /** Remembers that message `messageId` asked `asker` for an alias for `phone`. */
  async rememberAsk(
    phone: string,
    asker: NonNullable<Asker>,
    chatId: number,
    messageId: number,
  ): Promise<void> {
    const ask: AliasAsk = {
      kind: "ask",
      phone,
      initiatorId: asker.userId,
      chatId,
      expiresAtMs: this.#context.now() + this.#options.promptTtlMs,
    };
    await this.#store.putPending(askId(chatId, messageId), ask, this.#options.promptTtlMs);
  }

  /**
   * A reply to message `messageId`: when that message asked this person for an alias, the
   * number it was about (the question is then used up); otherwise null.
   */
  async answerAsk(chatId: number, messageId: number, asker: Asker): Promise<string | null> {
    const id = askId(chatId, messageId);
    const ask = await this.#store.getPending(id);
    if (ask?.kind !== "ask" || asker === null || ask.initiatorId !== asker.userId) return null;
    const taken = await this.#store.takePending(id);
    return taken?.kind === "ask" ? taken.phone : null;
  }

  async #rename(payout: Payout): Promise<void> {
    const key = aliasKey(payout.recipientAlias ?? "");
    const saved = await this.#store.get(key);
    // Only the entry the prompt showed: the same number, still under the old name.
    if (saved?.phone !== payout.phone || saved.registeredName === payout.recipientName) return;
    if (saved.registeredName !== payout.savedName) return;
    const renamed = { ...saved, registeredName: payout.recipientName, rev: saved.rev + 1 };
    const written = await this.#store.put(key, renamed, saved.rev);
    if (written.outcome !== "written") return;
    await this.#context.stores.audit.record({
      atMs: this.#context.now(),
      ...actorFields(SYSTEM_ACTOR),
      action: "recipient_renamed",
      payoutId: payout.id,
      phone: maskPhone(payout.phone),
      details: { alias: saved.alias, from: saved.registeredName, to: payout.recipientName },
    });
  }

  /** Counts the entries only when `key` is new (the bound applies to new aliases). */
  async #countIfNew(key: string): Promise<number> {
    if (await this.#store.get(key)) return 0;
    return this.#store.count();
  }

  async #registeredName(phone: string): Promise<string | PrepareSaveResult> {
    try {
      const name = cleanName(await this.#context.gateway.getUserInfo(phone));
      return name === "" ? { outcome: "no_account", phone } : name;
    } catch (error) {
      if (error instanceof PaymentApiError && error.statusCode === 404) {
        return { outcome: "no_account", phone };
      }
      if (error instanceof LimiterUnavailableError) throw error;
      if (error instanceof PaymentClientError) return { outcome: "api_error", error };
      throw error;
    }
  }
}

/** Replacing or forgetting an entry: its saver (while they may pay) or an admin. */
export function mayChange(asker: NonNullable<Asker>, recipient: Recipient): boolean {
  if (may(asker, "forget_any_recipient")) return true;
  return asker.userId === recipient.savedBy && may(asker, "pay");
}

function actorOf(asker: NonNullable<Asker>): ReturnType<typeof actorFields> {
  return actorFields(staffActor(asker));
}
