/**
 * Views of saved recipients: the /save prompt, /recipients pages, the answers of /save and
 * /forget, the question for an alias, and what a /pay prompt says of an alias. Same rules
 * as views.ts: everything from a user or the API is escaped by `t()`.
 */
import { Markup } from "telegraf";
import type { MessageKey, Translate } from "../../i18n.js";
import type { Payout } from "../../model/payout.js";
import { formatPhone } from "../../model/phone.js";
import type { AliasProblem, ListedRecipient, SavePrompt } from "../../model/recipient.js";
import { operatorName, type View } from "./common.js";
import { maskedPhone } from "./reports.js";

/** Callback data: an action and an opaque random token (or a payout id, a page). */
export const RECIPIENT_CALLBACK = {
  save: (token: string) => `vs:${token}`,
  cancel: (token: string) => `vx:${token}`,
  /** A page of /recipients (`token`: the search's words, kept by the bot; "-": none). */
  page: (page: number, token: string) => `vp:${page}:${token}`,
  /** **Save recipient** under a paid payout's notice. */
  saveRecipient: (payoutId: string) => `vr:${payoutId}`,
} as const;
export const RECIPIENT_CALLBACK_PATTERN = {
  save: /^vs:([\w-]{8,40})$/,
  cancel: /^vx:([\w-]{8,40})$/,
  page: /^vp:(\d{1,4}):(-|[\w-]{8,40})$/,
  saveRecipient: /^vr:([\w-]{8,40})$/,
} as const;

/** Entries on one page of /recipients. */
export const RECIPIENTS_PAGE_SIZE = 10;

const ALIAS_PROBLEM_KEY: Record<AliasProblem, MessageKey> = {
  length: "recipients.bad_alias.length",
  characters: "recipients.bad_alias.characters",
  no_letter: "recipients.bad_alias.no_letter",
  mixed_scripts: "recipients.bad_alias.mixed_scripts",
  looks_like_number: "recipients.bad_alias.looks_like_number",
};

export function aliasProblemText(t: Translate, problem: AliasProblem): string {
  return t(ALIAS_PROBLEM_KEY[problem]);
}

function numberText(phone: string, operator: Parameters<typeof operatorName>[0]) {
  return { phone: formatPhone(phone), operator: operatorName(operator) };
}

/** /save's prompt: the alias, the registered name and number, the entry it replaces. */
export function savePromptView(
  t: Translate,
  token: string,
  prompt: SavePrompt,
  nowMs: number,
): View {
  const minutes = Math.max(1, Math.round((prompt.expiresAtMs - nowMs) / 60_000));
  const old = prompt.replaces;
  const lines = [
    t(old ? "recipients.prompt_replace" : "recipients.prompt_new"),
    "",
    t("recipients.alias", { alias: prompt.alias }),
  ];
  if (old) {
    lines.push(
      t("recipients.old_entry", {
        name: old.registeredName,
        ...numberText(old.phone, old.operator),
        when: t.time(old.savedAtMs),
      }),
      t("recipients.new_entry", {
        name: prompt.registeredName,
        ...numberText(prompt.phone, prompt.operator),
      }),
    );
  } else {
    lines.push(
      t("recipients.name", { name: prompt.registeredName }),
      t("payout.number", numberText(prompt.phone, prompt.operator)),
    );
  }
  lines.push("", t("recipients.prompt_expires", { minutes, time: t.time(prompt.expiresAtMs) }));
  const keyboard = Markup.inlineKeyboard([
    Markup.button.callback(
      t.plain(old ? "button.replace" : "button.save"),
      RECIPIENT_CALLBACK.save(token),
    ),
    Markup.button.callback(t.plain("button.cancel"), RECIPIENT_CALLBACK.cancel(token)),
  ]).reply_markup;
  return { text: lines.join("\n"), keyboard };
}

/** One page of /recipients (`page` from 0), `words` the search, `token` for its buttons. */
export function recipientsView(
  t: Translate,
  entries: readonly ListedRecipient[],
  options: { page: number; words: readonly string[]; token: string },
): View {
  const words = options.words.join(" ");
  if (entries.length === 0) {
    return {
      text: words === "" ? t("recipients.list_empty") : t("recipients.list_none_match", { words }),
    };
  }
  const pages = Math.max(1, Math.ceil(entries.length / RECIPIENTS_PAGE_SIZE));
  const page = Math.min(Math.max(0, options.page), pages - 1);
  const shown = entries.slice(page * RECIPIENTS_PAGE_SIZE, (page + 1) * RECIPIENTS_PAGE_SIZE);
  const title =
    words === ""
      ? t("recipients.list_title", { page: page + 1, pages })
      : t("recipients.list_title_search", { words, page: page + 1, pages });
  const lines = [title, ""];
  for (const entry of shown) {
    lines.push(
      t("recipients.list_line", {
        alias: entry.alias,
        name: entry.registeredName,
        phone: maskedPhone(entry.phone),
        paid:
          entry.lastPaidAtMs === undefined
            ? t.plain("recipients.never_paid")
            : t.plain("recipients.last_paid", { when: t.time(entry.lastPaidAtMs) }),
      }),
    );
  }
  lines.push("", t("recipients.list_hint"));
  const buttons = [];
  if (page > 0) {
    buttons.push(
      Markup.button.callback(
        t.plain("button.newer"),
        RECIPIENT_CALLBACK.page(page - 1, options.token),
      ),
    );
  }
  if (page + 1 < pages) {
    buttons.push(
      Markup.button.callback(
        t.plain("button.older"),
        RECIPIENT_CALLBACK.page(page + 1, options.token),
      ),
    );
  }
  const text = lines.join("\n");
  return buttons.length > 0
    ? { text, keyboard: Markup.inlineKeyboard([buttons]).reply_markup }
    : { text };
}

/** What a /pay prompt says when its number came from an alias whose saved name differs. */
export function aliasPromptNotes(t: Translate, payout: Payout): string[] {
  const { recipientAlias: alias, savedName, savedAtMs } = payout;
  if (alias === undefined || savedName === undefined || savedAtMs === undefined) return [];
  if (savedName === payout.recipientName) return [];
  return [
    t("prompt.name_changed", {
      alias,
      saved: savedName,
      when: t.time(savedAtMs),
      name: payout.recipientName,
    }),
    t("prompt.name_changed_note", { alias }),
  ];
}

/** The **Save recipient** button under a paid payout's notice. */
export function saveRecipientKeyboard(t: Translate, payoutId: string) {
  return Markup.inlineKeyboard([
    Markup.button.callback(
      t.plain("button.save_recipient"),
      RECIPIENT_CALLBACK.saveRecipient(payoutId),
    ),
  ]).reply_markup;
}
