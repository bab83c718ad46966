/**
 * Telegram as the bot will find it: the token (getMe), the webhook Telegram holds and its
 * last delivery error, and the command menu. Read-only: the doctor sets nothing; the bot
 * sets the webhook and the menu itself at start.
 */
import type { Telegram } from "telegraf";
import type { BotCommand, WebhookInfo } from "telegraf/types";
import { commandMenu } from "../bot/bot.js";
import { describeTelegramFailure } from "../bot/telegram/failures.js";
import { boundedTelegram } from "../bot/telegram/transport.js";
import type { Config } from "../config/index.js";
import { redactToken } from "../logger.js";
import { askGetMe, StartupError } from "../startup-checks.js";
import { probe, shownUrl } from "./http-probe.js";
import { type CheckResult, fail, ok, reasonOf, warn, withinDeadline } from "./report.js";

/** One Bot API call's deadline. */
const CALL_TIMEOUT_MS = 5000;

/** A webhook delivery error older than this is history, not news. */
const RECENT_ERROR_SECONDS = 24 * 3600;

function call<T>(method: string, work: Promise<T>): Promise<T> {
  return withinDeadline(`Telegram (${method})`, CALL_TIMEOUT_MS + 1000, work);
}

/** The token, the webhook as Telegram has it, our webhook URL answering, the menu. */
export async function telegramChecks(config: Config, nowMs: number): Promise<CheckResult[]> {
  const { token, apiRoot } = config.telegram;
  if (!token) return [fail("telegram bot", "TELEGRAM_BOT_TOKEN is not set", "Set it.")];
  const telegram = boundedTelegram(token, apiRoot, CALL_TIMEOUT_MS);
  let bot: CheckResult;
  try {
    const me = await call("getMe", askGetMe(telegram));
    bot = me.isBotMissing
      ? warn("telegram bot", `@${me.username} (id ${me.info.id}); getMe left out is_bot`)
      : ok("telegram bot", `@${me.username} (id ${me.info.id}) at ${shownUrl(apiRoot)}`);
  } catch (error) {
    bot = startupFailure("telegram bot", error, "Check TELEGRAM_API_ROOT.");
  }
  if (bot.status === "fail") {
    const skipped = "not checked: getMe failed";
    return [
      bot,
      warn("telegram webhook", skipped),
      await webhookUrlCheck(config),
      warn("telegram commands", skipped),
    ];
  }
  const [webhook, webhookUrl, commands] = await Promise.all([
    webhookCheck(telegram, config, nowMs),
    webhookUrlCheck(config),
    commandsCheck(telegram),
  ]);
  return [bot, webhook, webhookUrl, commands];
}

/** A StartupError's problem and fix as a ✗ line; anything else with `fix`. */
export function startupFailure(name: string, error: unknown, fix: string): CheckResult {
  if (error instanceof StartupError) return fail(name, error.problem, error.fix ?? fix);
  return fail(name, redactToken(reasonOf(error)), fix);
}

/** What Telegram holds: the URL updates go to, and its last delivery error. */
async function webhookCheck(
  telegram: Telegram,
  config: Config,
  nowMs: number,
): Promise<CheckResult> {
  const name = "telegram webhook";
  let info: WebhookInfo;
  try {
    info = await call("getWebhookInfo", telegram.getWebhookInfo());
  } catch (error) {
    return fail(name, describeTelegramFailure("getWebhookInfo", error), "Check TELEGRAM_API_ROOT.");
  }
  const held = info.url ? redactToken(shownUrl(info.url)) : "";
  const wanted = config.telegram.webhookUrl;
  if (wanted === undefined) {
    if (held === "") return ok(name, "none: the bot long-polls (TELEGRAM_WEBHOOK_URL unset)");
    return warn(
      name,
      `Telegram sends this bot's updates to ${held}; started in polling mode, the bot removes that webhook`,
      "If another deployment uses this token, give each its own bot.",
    );
  }
  const pending = `${info.pending_update_count} update${info.pending_update_count === 1 ? "" : "s"} waiting`;
  const lastError = recentError(info, nowMs);
  if (lastError !== undefined) {
    return warn(
      name,
      `last delivery failed ${lastError}; ${pending}`,
      "Make TELEGRAM_WEBHOOK_URL reach the bot (see the webhook url line).",
    );
  }
  if (info.url !== wanted) {
    const now = held === "" ? "none yet" : held;
    return warn(
      name,
      `Telegram holds ${now}; the bot sets ${redactToken(shownUrl(wanted))} at start`,
    );
  }
  return ok(name, `set to ${held}, ${pending}, no recent delivery error`);
}

/** "3 min ago: Wrong response from the webhook: 404 Not Found", when recent. */
function recentError(info: WebhookInfo, nowMs: number): string | undefined {
  if (info.last_error_date === undefined || info.last_error_message === undefined) return undefined;
  const ageSeconds = Math.max(0, Math.round(nowMs / 1000 - info.last_error_date));
  if (ageSeconds > RECENT_ERROR_SECONDS) return undefined;
  const age = ageSeconds < 120 ? `${ageSeconds} s` : `${Math.round(ageSeconds / 60)} min`;
  return `${age} ago: ${redactToken(info.last_error_message)}`;
}

/**
 * Our own webhook URL from outside: the bot answers anything but a POST with its secret
 * with 405 or 401, so any answer but a 404 or a 5xx shows the path reaches a server that
 * knows it. A 404 is a proxy or a path that does not lead to the bot.
 */
async function webhookUrlCheck(config: Config): Promise<CheckResult> {
  const name = "webhook url";
  const url = config.telegram.webhookUrl;
  if (url === undefined) return ok(name, "not used: long polling");
  const shown = redactToken(shownUrl(url));
  const answer = await probe(url);
  if (!answer.answered) {
    return fail(
      name,
      `${shown} did not answer (${answer.reason})`,
      "Start the bot, or point TELEGRAM_WEBHOOK_URL and the proxy in front at it.",
    );
  }
  if (answer.status === 404 || answer.status >= 500) {
    return fail(
      name,
      `${shown} answered ${answer.status} to a GET`,
      "Route TELEGRAM_WEBHOOK_URL's path to the bot's HTTP server (the bot answers it with 405 to a GET).",
    );
  }
  return ok(name, `${shown} answers (${answer.status} to a GET; the bot itself answers 405)`);
}

/** Telegram's menu against this version's, in English and in French. */
async function commandsCheck(telegram: Telegram): Promise<CheckResult> {
  const name = "telegram commands";
  try {
    const [en, fr] = await Promise.all([
      call("getMyCommands", telegram.getMyCommands()),
      call("getMyCommands", telegram.getMyCommands({ language_code: "fr" })),
    ]);
    const wanted = commandMenu("en");
    const same = sameMenu(en, wanted) && sameMenu(fr, commandMenu("fr"));
    if (same) return ok(name, `${wanted.length} commands, in English and French`);
    return warn(
      name,
      `Telegram's menu is not this version's (${en.length} in English, ${fr.length} in French, ${wanted.length} expected); the bot sets it at start`,
    );
  } catch (error) {
    return warn(
      name,
      describeTelegramFailure("getMyCommands", error),
      "The menu is cosmetic; the bot runs without it.",
    );
  }
}

function sameMenu(held: readonly BotCommand[], wanted: readonly BotCommand[]): boolean {
  return (
    held.length === wanted.length &&
    held.every(
      (command, i) =>
        command.command === wanted[i]?.command && command.description === wanted[i]?.description,
    )
  );
}
