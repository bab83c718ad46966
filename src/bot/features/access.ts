/**
 * Runs before every feature, on every update (callback queries included): finds the
 * staff member behind the update by numeric Telegram user id, their language, and keeps
 * money talk out of groups. Strangers get a short refusal that shows their id. A staff
 * member's Telegram name is remembered (when it changed) for lists that say who did what.
 * Each person's button presses are counted in Redis, across replicas: past a few a second
 * they are answered "wait a few seconds" and do nothing else, so forged ids, stale buttons
 * and double taps cannot spend what everyone shares (Redis, Telegram, the API's rate limit).
 */
import type { Middleware } from "telegraf";
import { translator } from "../../i18n.js";
import type { Logger } from "../../logger.js";
import { traceMark } from "../../metrics/latency-trace.js";
import { type Locale, localeFromLanguageCode } from "../../model/locale.js";
import type { Role } from "../../model/roles.js";
import type { Payouts } from "../../payouts/payouts.js";
import type { PressCounter } from "../../payouts/sessions.js";
import type { Stores } from "../../store/types.js";
import type { BotContext, ConfirmClaimedAhead } from "../context.js";
import { replyHtml } from "../telegram/reply.js";

export interface AccessDeps {
  payouts: Pick<Payouts, "sessions" | "staffNames">;
  stores: Stores;
  logger: Logger;
  /** IANA zone of the times `ctx.t` shows; default Africa/Douala. */
  timeZone?: string | undefined;
  /** Button presses one person may make in a minute; default 60. */
  pressesPerMinute?: number | undefined;
  /**
   * Called once the reads below are sent, before their answer: a feature may send its own
   * reads in the same round trip (features/pay.ts), knowing nothing yet of the sender. A
   * Confirm's claim sent there (ctx.confirmAhead) counts the press itself on `press`, the
   * counter this step would count it on: its outcome says whether the press was allowed.
   * `role`: this step's read of the sender's role, sent before anything `early` sends.
   */
  early?: ((ctx: BotContext, press: PressCounter, role: Promise<Role | null>) => void) | undefined;
  /** Called with the id of a sender found not to be staff (their update goes no further). */
  stranger?: ((userId: number) => void) | undefined;
  /** The language of someone whose Telegram app speaks neither English nor French; default en. */
  defaultLocale?: Locale | undefined;
}

const GROUP_ALLOWED = /^\/(start|help)(@\w+)?(\s|$)/;

/**
 * Presses one person may make in a minute by default: more than any hand makes (twenty
 * double taps at once still all get their own answer), far fewer than a script sends.
 */
const DEFAULT_PRESSES_PER_MINUTE = 60;
const PRESS_WINDOW_MS = 60_000;

export function access(deps: AccessDeps): Middleware<BotContext> {
  const names = deps.payouts.staffNames;
  const pressLimit = deps.pressesPerMinute ?? DEFAULT_PRESSES_PER_MINUTE;
  return async (ctx, next) => {
    const from = ctx.from;
    if (!from || from.is_bot) return;
    // One round trip to Redis: the reads below go out in one write (auto-pipelining).
    const chatId = ctx.chat?.id;
    const roleRead = deps.stores.staff.get(from.id);
    const reads = Promise.all([
      roleRead,
      deps.stores.sessions.getLocale(from.id),
      chatId === undefined ? null : deps.stores.sessions.getDialog(chatId),
    ]);
    const { sessions } = deps.payouts;
    const press = sessions.pressCounter(from.id, pressLimit, PRESS_WINDOW_MS);
    try {
      deps.early?.(ctx, press, roleRead);
    } catch (error) {
      deps.logger.warn({ err: error }, "reads ahead not started; the feature reads them itself");
    }
    const ahead = ctx.confirmAhead;
    const counted = !ctx.callbackQuery
      ? true
      : ahead
        ? // The claim counted the press in its own step; one that failed is counted here.
          ahead.result.then(
            (claim) => claim.outcome !== "throttled",
            () => sessions.pressAllowed(from.id, pressLimit, PRESS_WINDOW_MS),
          )
        : sessions.pressAllowed(from.id, pressLimit, PRESS_WINDOW_MS);
    const [[role, savedLocale, dialog], pressAllowed] = await Promise.all([reads, counted]);
    traceMark("access read");
    ctx.dialog = dialog;
    ctx.staff = role ? { userId: from.id, role } : null;
    ctx.locale = savedLocale ?? localeFromLanguageCode(from.language_code, deps.defaultLocale);
    ctx.t = translator(ctx.locale, deps.timeZone);
    ctx.log = deps.logger.child({ updateId: ctx.update.update_id, userId: from.id });
    if (!pressAllowed) {
      ctx.log.debug("press over the person's limit: answered, nothing done");
      await ctx.answerCbQuery(ctx.t.plain("access.too_many_presses"));
      return;
    }

    if (ctx.chat && ctx.chat.type !== "private") {
      const text = ctx.message && "text" in ctx.message ? ctx.message.text : "";
      if (GROUP_ALLOWED.test(text)) {
        await replyHtml(ctx, ctx.t("group.private_only", { bot: ctx.botInfo.username }));
      } else if (ctx.callbackQuery) {
        await ctx.answerCbQuery(ctx.t.plain("group.private_only", { bot: ctx.botInfo.username }));
      }
      return;
    }
    // The claim read the staff record after the read above: a member added in between has
    // a claim made, and its request must leave (the Confirm handler sends it).
    if (!ctx.staff && ahead && (await claimedAhead(ahead))) {
      ctx.staff = { userId: from.id, role: ahead.role };
    }
    if (!ctx.staff) {
      deps.stranger?.(from.id);
      ctx.log.warn({ chatId: ctx.chat?.id }, "refused update from a user who is not staff");
      if (ctx.callbackQuery) {
        await ctx.answerCbQuery(ctx.t.plain("access.refused", { id: from.id }), {
          show_alert: true,
        });
      } else {
        await replyHtml(ctx, ctx.t("access.refused", { id: from.id }));
      }
      return;
    }
    // Lists name who made each payout; a name that cannot be saved costs only that.
    await names
      .remember(from)
      .catch((error: unknown) => ctx.log.warn({ err: error }, "could not save the user's name"));
    traceMark("access done");
    return next();
  };
}

/** Whether a Confirm's claim sent ahead (ctx.confirmAhead) was made. */
function claimedAhead(ahead: ConfirmClaimedAhead): Promise<boolean> {
  return ahead.result.then(
    (claim) => claim.outcome === "claimed",
    () => false,
  );
}

/**
 * Handles the updates of one chat one after another (Telegraf's polling runs a batch
 * concurrently), so a dialog never sees its steps out of order. Callback queries skip the
 * queue: they must be answered within seconds, and every button acts through an atomic
 * compare-and-set, so order does not matter for them.
 */
export function sequentialPerChat(): Middleware<BotContext> {
  const tails = new Map<number, Promise<void>>();
  return (ctx, next) => {
    const chatId = ctx.chat?.id;
    if (chatId === undefined || ctx.callbackQuery) return next();
    const previous = tails.get(chatId) ?? Promise.resolve();
    const run = previous.then(() => next());
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    tails.set(chatId, tail);
    void tail.then(() => {
      if (tails.get(chatId) === tail) tails.delete(chatId);
    });
    return run;
  };
}
