/**
 * Saved recipients (the merchant's address book): an alias for a number, with the name the
 * number was registered to when it was saved. Aliases are matched without regard to case
 * or accents (`Aïcha`, `aicha` and `AICHA` are one alias), through their key.
 */
import { z } from "zod";
import { TelecomOperatorSchema } from "./payment-terms.js";

/** Shortest and longest alias, in characters (after Unicode NFC normalization). */
export const ALIAS_MIN_CHARS = 2;
export const ALIAS_MAX_CHARS = 32;

/** The most aliases one merchant may keep; saving one more is refused. */
export const MAX_RECIPIENTS = 5000;

export type AliasProblem =
  /** Shorter than 2 or longer than 32 characters. */
  | "length"
  /** A character outside letters (accents included), digits, `_`, `-`, `.`. */
  | "characters"
  /** No letter at all (`12-34`): it could be mistaken for a number. */
  | "no_letter"
  /** Letters of more than one script (`jеan` with a Cyrillic `е`): a look-alike of another. */
  | "mixed_scripts"
  /** A number once O, o, I, l, i are read as digits (`67O000001`). */
  | "looks_like_number";

export type AliasParseResult =
  | { ok: true; alias: string; key: string }
  | { ok: false; problem: AliasProblem };

const ALIAS_CHARS = /^[\p{L}\p{M}\p{Nd}_.-]+$/u;
const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;

/**
 * The scripts an alias's letters may come from, one at a time. A letter of none of these
 * counts as a script of its own, so it cannot be mixed with them either.
 */
const SCRIPTS = [
  /\p{Script=Latin}/u,
  /\p{Script=Cyrillic}/u,
  /\p{Script=Greek}/u,
  /\p{Script=Arabic}/u,
  /\p{Script=Han}/u,
];

/** How many scripts the letters of `alias` come from. */
function scriptsOf(alias: string): number {
  const found = new Set<number>();
  for (const char of alias) {
    if (!LETTER.test(char)) continue;
    const index = SCRIPTS.findIndex((script) => script.test(char));
    found.add(index);
  }
  return found.size;
}

/** Letters read as digits by eye: O and o as 0, I, l and i as 1. */
function asDigits(alias: string): string {
  return alias.replace(/[Oo]/g, "0").replace(/[Ili]/g, "1");
}

/**
 * The key an alias is matched by: decomposed (NFD), combining marks dropped, lower case.
 * `Aïcha` and `AICHA` have the key `aicha`.
 */
export function aliasKey(alias: string): string {
  return alias.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

/**
 * Checks what someone typed as an alias: 2–32 letters (accents included), digits, `_`, `-`
 * or `.`, with at least one letter (an alias never reads as a number). Look-alikes are
 * folded or refused: compatibility forms are folded (NFKC: fullwidth `ｊｅａｎ` is `jean`);
 * letters of two scripts (`jеan` with a Cyrillic `е`) and an alias that reads as a number
 * once O, o, I, l, i are read as digits (`67O000001`) are refused. Answers the alias as
 * written (NFKC) and its key.
 */
export function parseAlias(input: string): AliasParseResult {
  const alias = input.trim().normalize("NFKC");
  const length = [...alias].length;
  if (length < ALIAS_MIN_CHARS || length > ALIAS_MAX_CHARS) return { ok: false, problem: "length" };
  if (!ALIAS_CHARS.test(alias)) return { ok: false, problem: "characters" };
  if (!LETTER.test(alias)) return { ok: false, problem: "no_letter" };
  if (scriptsOf(alias) > 1) return { ok: false, problem: "mixed_scripts" };
  if (DIGIT.test(alias) && !LETTER.test(asDigits(alias))) {
    return { ok: false, problem: "looks_like_number" };
  }
  return { ok: true, alias, key: aliasKey(alias) };
}

export const RecipientSchema = z.object({
  /** As the saver wrote it (NFC). */
  alias: z.string().min(1).max(64),
  /** 12 digits, 237 first. */
  phone: z.string().regex(/^237\d{9}$/),
  operator: TelecomOperatorSchema,
  /** The name the number was registered to when saved (or when last paid after a change). */
  registeredName: z.string(),
  /** Telegram user id of the staff member who saved it. */
  savedBy: z.number().int(),
  savedAtMs: z.number().int(),
  /**
   * The entry's revision: 1 when first saved, one more at each change. Every change says
   * which revision it replaces, so a change made on a stale read is refused.
   */
  rev: z.number().int().positive(),
});
export type Recipient = z.infer<typeof RecipientSchema>;

/** A recipient as listed: with when its number was last paid, when it was since saving. */
export type ListedRecipient = Recipient & { lastPaidAtMs?: number };

/**
 * A /save waiting for its Save press: what will be stored, and the revision of the entry
 * it replaces (0: the alias is new). Only its initiator may press, until `expiresAtMs`.
 */
export const SavePromptSchema = z.object({
  kind: z.literal("save"),
  alias: z.string().min(1).max(64),
  phone: z.string().regex(/^237\d{9}$/),
  operator: TelecomOperatorSchema,
  registeredName: z.string(),
  initiatorId: z.number().int(),
  chatId: z.number().int(),
  expiresAtMs: z.number().int(),
  /** The entry this replaces, as the prompt showed it; absent for a new alias. */
  replaces: RecipientSchema.optional(),
});
export type SavePrompt = z.infer<typeof SavePromptSchema>;

/**
 * A **Save recipient** press waiting for the alias: the bot asked for it in message
 * `messageId`, and a reply to that message by `initiatorId` is the alias.
 */
export const AliasAskSchema = z.object({
  kind: z.literal("ask"),
  phone: z.string().regex(/^237\d{9}$/),
  initiatorId: z.number().int(),
  chatId: z.number().int(),
  expiresAtMs: z.number().int(),
});
export type AliasAsk = z.infer<typeof AliasAskSchema>;

/** A /recipients search whose pages are turned by buttons (the words stay out of them). */
export const RecipientSearchSchema = z.object({
  kind: z.literal("search"),
  words: z.array(z.string().max(64)).max(10),
});
export type RecipientSearch = z.infer<typeof RecipientSearchSchema>;

export const RecipientPendingSchema = z.discriminatedUnion("kind", [
  SavePromptSchema,
  AliasAskSchema,
  RecipientSearchSchema,
]);
export type RecipientPending = z.infer<typeof RecipientPendingSchema>;
