/**
 * Saved recipients: `/save <alias> <number>` (a prompt with Save / Cancel), `/recipients
 * [words]` (paged, searchable), `/forget <alias>`, and **Save recipient** under a paid
 * payout's notice, which asks for the alias with a ForceReply question: the answer is a
 * reply to that message, then the same prompt as /save. Nothing here writes to a store;
 * payouts/recipients.ts does.
 */
import type { Composer } from "telegraf";
import { message } from "telegraf/filters";
import { MAX_AMOUNT_XAF } from "../../model/money.js";
import { formatPhone as formatPhoneText } from "../../model/phone.js";
import type { Payouts } from "../../payouts/payouts.js";
import { may } from "../../payouts/policy.js";
import type { PrepareSaveResult } from "../../payouts/recipients.js";
import type { BotContext } from "../context.js";
import { dropGoneButtons } from "../telegram/best-effort.js";
import { FlatComposer } from "../telegram/flat-composer.js";
import { editView, replyHtml, replyView } from "../telegram/reply.js";
import { apiTroubleText } from "../views/common.js";
import { prepareFailureText } from "../views/pay.js";
import {
  aliasProblemText,
  RECIPIENT_CALLBACK_PATTERN,
  recipientsView,
  savePromptView,
} from "../views/recipients.js";
import { commandPayload } from "./shared/command-args.js";

export interface RecipientsDeps {
  payouts: Payouts;
  now: () => number;
}

/** Search words kept for a /recipients' page buttons: at most this many. */
const MAX_SEARCH_WORDS = 10;

export function recipientsFeature(deps: RecipientsDeps): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  const recipients = deps.payouts.recipients;

  const maySave = async (ctx: BotContext): Promise<boolean> => {
    if (may(ctx.staff, "pay")) return true;
    const role = ctx.t.plain(`role.${ctx.staff?.role ?? "viewer"}`);
    await replyHtml(ctx, ctx.t("recipients.cannot_save", { role }));
    return false;
  };

  /** Shows what /save (or an alias given to Save recipient) came to. */
  const answerSave = async (ctx: BotContext, result: PrepareSaveResult) => {
    const t = ctx.t;
    switch (result.outcome) {
      case "prompt": {
        await replyView(ctx, savePromptView(t, result.token, result.prompt, deps.now()));
        return;
      }
      case "unchanged": {
        const { alias, registeredName: name, phone } = result.recipient;
        await replyHtml(
          ctx,
          t("recipients.unchanged", { alias, name, phone: formatPhoneText(phone) }),
        );
        return;
      }
      case "forbidden":
        await maySave(ctx);
        return;
      case "not_theirs":
        await replyHtml(ctx, t("recipients.replace_forbidden", { alias: result.recipient.alias }));
        return;
      case "bad_alias":
        await replyHtml(ctx, `${aliasProblemText(t, result.problem)}\n${t("usage.save")}`);
        return;
      case "bad_phone": {
        const failure = {
          reason: "bad_phone",
          problem: result.problem,
          operator: result.operator,
        } as const;
        await replyHtml(ctx, prepareFailureText(t, failure, "pay", MAX_AMOUNT_XAF));
        return;
      }
      case "no_account":
        await replyHtml(
          ctx,
          prepareFailureText(
            t,
            { reason: "no_account", phone: result.phone },
            "pay",
            MAX_AMOUNT_XAF,
          ),
        );
        return;
      case "api_error":
        await replyHtml(ctx, apiTroubleText(t, result.error));
        return;
      case "full":
        await replyHtml(ctx, t("recipients.full", { max: result.max }));
        return;
    }
  };

  composer.command("save", async (ctx) => {
    if (!(await maySave(ctx))) return;
    const words = commandPayload(ctx.message.text)
      .split(/\s+/)
      .filter((word) => word !== "");
    const [alias, ...phone] = words;
    if (alias === undefined || phone.length === 0) {
      await replyHtml(ctx, ctx.t("usage.save"));
      return;
    }
    const result = await recipients.prepareSave({
      alias,
      phone: phone.join(" "),
      asker: ctx.staff,
      chatId: ctx.chat.id,
    });
    await answerSave(ctx, result);
  });

  composer.command("recipients", async (ctx) => {
    if (!may(ctx.staff, "read")) return;
    const words = commandPayload(ctx.message.text)
      .split(/\s+/)
      .filter((word) => word !== "")
      .slice(0, MAX_SEARCH_WORDS)
      .map((word) => word.slice(0, 64));
    const entries = await recipients.list(words);
    const token = words.length > 0 ? await recipients.keepSearch(words) : "-";
    await replyView(ctx, recipientsView(ctx.t, entries, { page: 0, words, token }));
  });

  composer.action(RECIPIENT_CALLBACK_PATTERN.page, async (ctx) => {
    if (!may(ctx.staff, "read")) {
      await dropGoneButtons(ctx);
      return;
    }
    const page = Number(ctx.match[1]);
    const token = ctx.match[2] ?? "-";
    const words = token === "-" ? [] : await recipients.searchWords(token);
    if (words === null) {
      await dropGoneButtons(ctx);
      return;
    }
    const entries = await recipients.list(words);
    await ctx.answerCbQuery();
    await editView(ctx, recipientsView(ctx.t, entries, { page, words, token }));
  });

  composer.command("forget", async (ctx) => {
    if (!(await maySave(ctx))) return;
    const alias = commandPayload(ctx.message.text).trim();
    if (alias === "") {
      await replyHtml(ctx, ctx.t("usage.forget"));
      return;
    }
    const result = await recipients.forget(alias, ctx.staff);
    const t = ctx.t;
    switch (result.outcome) {
      case "forgotten": {
        const { alias: saved, registeredName: name, phone } = result.recipient;
        await replyHtml(
          ctx,
          t("recipients.forgotten", { alias: saved, name, phone: formatPhoneText(phone) }),
        );
        return;
      }
      case "bad_alias":
        await replyHtml(ctx, `${aliasProblemText(t, result.problem)}\n${t("usage.forget")}`);
        return;
      case "unknown_alias":
        await replyHtml(ctx, t("recipients.unknown_alias", { alias: result.alias }));
        return;
      case "forbidden":
        await replyHtml(ctx, t("recipients.forget_forbidden", { alias: result.recipient.alias }));
        return;
      case "changed":
        await replyHtml(ctx, t("recipients.forget_changed", { alias }));
        return;
    }
  });

  composer.action(RECIPIENT_CALLBACK_PATTERN.save, async (ctx) => {
    const token = ctx.match[1] ?? "";
    const result = await recipients.save(token, ctx.staff);
    const t = ctx.t;
    switch (result.outcome) {
      case "saved": {
        const { alias, registeredName: name, phone } = result.recipient;
        await ctx.answerCbQuery(t.plain("recipients.saved_alert"));
        await editView(ctx, {
          text: t("recipients.saved", { alias, name, phone: formatPhoneText(phone) }),
        });
        return;
      }
      case "forbidden":
        await ctx.answerCbQuery(t.plain("recipients.not_yours"), { show_alert: true });
        return;
      case "expired":
        await ctx.answerCbQuery(t.plain("recipients.expired"), { show_alert: true });
        await editView(ctx, { text: t("recipients.expired") });
        return;
      case "changed": {
        const alias = result.current?.alias ?? "";
        await ctx.answerCbQuery();
        await editView(ctx, { text: t("recipients.changed", { alias }) });
        return;
      }
      case "full":
        await ctx.answerCbQuery();
        await editView(ctx, { text: t("recipients.full", { max: result.max }) });
        return;
      case "not_found":
        await dropGoneButtons(ctx);
        return;
    }
  });

  composer.action(RECIPIENT_CALLBACK_PATTERN.cancel, async (ctx) => {
    const token = ctx.match[1] ?? "";
    const result = await recipients.cancelSave(token, ctx.staff);
    switch (result.outcome) {
      case "cancelled":
        await ctx.answerCbQuery(ctx.t.plain("recipients.cancelled"));
        await editView(ctx, { text: ctx.t("recipients.cancelled") });
        return;
      case "forbidden":
        await ctx.answerCbQuery(ctx.t.plain("recipients.not_yours"), { show_alert: true });
        return;
      case "not_found":
        await dropGoneButtons(ctx);
        return;
    }
  });

  // **Save recipient** under a paid payout's notice: ask for the alias, as a reply.
  composer.action(RECIPIENT_CALLBACK_PATTERN.saveRecipient, async (ctx) => {
    const payoutId = ctx.match[1] ?? "";
    const result = await recipients.checkAsk(payoutId, ctx.staff);
    switch (result.outcome) {
      case "ask": {
        const staff = ctx.staff;
        const chatId = ctx.chat?.id;
        if (staff === null || chatId === undefined) return;
        await ctx.answerCbQuery();
        const minutes = Math.max(1, Math.round(recipients.promptTtlMs / 60_000));
        const asked = await ctx.reply(
          ctx.t("recipients.ask_alias", {
            name: result.name,
            phone: formatPhoneText(result.phone),
            minutes,
          }),
          { parse_mode: "HTML", reply_markup: { force_reply: true, selective: true } },
        );
        await recipients.rememberAsk(result.phone, staff, chatId, asked.message_id);
        return;
      }
      case "already_saved":
        await ctx.answerCbQuery(ctx.t.plain("recipients.already_saved"), { show_alert: true });
        await ctx.editMessageReplyMarkup(undefined).catch(() => undefined);
        return;
      case "forbidden":
        await ctx.answerCbQuery(ctx.t.plain("recipients.ask_forbidden"), { show_alert: true });
        return;
      case "not_found":
        await dropGoneButtons(ctx);
        return;
    }
  });

  // The answer to that question: a reply to the bot's message, by the one who was asked.
  composer.on(message("text"), async (ctx, next) => {
    const repliedTo = ctx.message.reply_to_message;
    if (repliedTo === undefined || ctx.message.text.startsWith("/")) return next();
    const phone = await recipients.answerAsk(ctx.chat.id, repliedTo.message_id, ctx.staff);
    if (phone === null) return next();
    const result = await recipients.prepareSave({
      alias: ctx.message.text,
      phone,
      asker: ctx.staff,
      chatId: ctx.chat.id,
    });
    // A mistyped alias: the question stays open for another reply.
    if (result.outcome === "bad_alias" && ctx.staff !== null) {
      await recipients.rememberAsk(phone, ctx.staff, ctx.chat.id, repliedTo.message_id);
    }
    await answerSave(ctx, result);
  });

  return composer;
}
