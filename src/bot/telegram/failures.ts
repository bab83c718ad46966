/**
 * Telegram call failures in words a person can act on, and the calls whose failure the
 * bot shrugs off. Telegraf's own messages read "undefined: undefined" when a server that
 * is not a Bot API answers, and may carry the bot token in a URL.
 */
import { TelegramError } from "telegraf";
import { z } from "zod";
import { type Logger, redactToken } from "../../logger.js";
import { DeliveryError } from "../../payouts/loops/notifier.js";
import { BotApiAnswerError } from "./transport.js";

/** At most `max` characters of `text`, on one line. */
export function excerpt(text: string, max = 200): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** What Telegraf keeps of an error answer; a server that is not a Bot API may send anything. */
const ErrorAnswerSchema = z.looseObject({
  error_code: z.number().optional(),
  description: z.string().optional(),
});

/** node-fetch's error: what Telegraf throws when no answer could be read at all. */
const FetchErrorSchema = z.looseObject({
  name: z.literal("FetchError"),
  type: z.string().optional(),
  message: z.string(),
});

/**
 * What Telegram (or whatever listens at TELEGRAM_API_ROOT) answered to `method`, with the
 * bot token redacted: "Telegram answered getMe with 500 Internal Server Error", "Telegram
 * answered getMe with something that is not a Bot API answer: {}".
 */
export function describeTelegramFailure(method: string, error: unknown): string {
  if (error instanceof TelegramError) {
    const answer = ErrorAnswerSchema.safeParse(error.response);
    const code = answer.success ? answer.data.error_code : undefined;
    if (code !== undefined) {
      const description = answer.success ? answer.data.description : undefined;
      return `Telegram answered ${method} with ${code} ${excerpt(redactToken(description || "(no description)"))}`;
    }
    const body = excerpt(redactToken(JSON.stringify(error.response) ?? "nothing"));
    return `Telegram answered ${method} with something that is not a Bot API answer: ${body}`;
  }
  if (error instanceof BotApiAnswerError) {
    const body = excerpt(redactToken(error.body));
    return error.kind === "not_json"
      ? `Telegram answered ${method} with a body that is not JSON (${body})`
      : `Telegram answered ${method} with something that is not a Bot API answer: ${body}`;
  }
  if (error instanceof Error && /^Telegram(Timeout|Network)Error$/.test(error.name)) {
    return excerpt(redactToken(error.message));
  }
  const fetchError = FetchErrorSchema.safeParse(error);
  if (fetchError.success) {
    const reason = excerpt(redactToken(fetchError.data.message.replace(/^.* reason: /, "")));
    return fetchError.data.type === "invalid-json"
      ? `Telegram answered ${method} with a body that is not JSON (${reason})`
      : `Telegram could not be reached for ${method} (${reason})`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `Telegram call ${method} failed: ${excerpt(redactToken(message))}`;
}

/**
 * Runs a call that only makes the bot nicer to use (the command menu, "typing…"): when it
 * fails, one warning says what Telegram answered (the stack, which says nothing more about a
 * refusal, only at debug level) and the bot goes on without it. Resolves false then.
 */
export async function cosmetic(
  method: string,
  call: () => Promise<unknown>,
  logger: Logger,
): Promise<boolean> {
  try {
    await call();
    return true;
  } catch (error) {
    const answer = describeTelegramFailure(method, error);
    logger.warn({ method, answer }, `${method} failed; going on without it: ${answer}`);
    logger.debug({ err: error, method }, `${method} failure in full`);
    return false;
  }
}

/**
 * How long a person waits for an answer before "typing…" is worth a Bot API call: an
 * answer sooner needs none (the status would barely show, and it costs a request).
 */
export const TYPING_AFTER_MS = 300;

/**
 * `work`'s result; when it has not settled within TYPING_AFTER_MS, `show` (a cosmetic call:
 * "typing…") is made meanwhile, not waited for.
 */
export async function showingWhileSlow<T>(work: Promise<T>, show: () => void): Promise<T> {
  const timer = setTimeout(show, TYPING_AFTER_MS);
  try {
    return await work;
  } finally {
    clearTimeout(timer);
  }
}

/** `work`'s result if it settles within `ms`, else undefined (it goes on either way). */
export async function settledWithin<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs a Telegram call whose failure must not stop what follows (logged, not thrown), and
 * stops waiting for it after `deadlineMs` (it may still land later).
 */
export async function bestEffort(
  logger: Logger,
  method: string,
  call: () => Promise<unknown>,
  deadlineMs: number,
): Promise<void> {
  try {
    const done = await settledWithin(
      call().then(() => true),
      deadlineMs,
    );
    if (!done) logger.warn({ method, deadlineMs }, `${method} is slow; carrying on`);
  } catch (error) {
    const answer = describeTelegramFailure(method, error);
    logger.warn({ err: error, method, answer }, `${method} failed; carrying on: ${answer}`);
  }
}

/**
 * A call refused for flood: Telegram's 429, or the pacer's own (pacing.ts, a turn further
 * than its `maxWaitMs`). Its `retry_after` says when trying again can succeed.
 */
export function isFloodRefusal(error: unknown): error is TelegramError {
  return error instanceof TelegramError && error.code === 429;
}

/** A refused or failed message, as the notifier wants it: may trying again help, and when. */
export function toDeliveryError(error: unknown): DeliveryError {
  if (error instanceof TelegramError) {
    const code = error.code;
    const retryAfterSeconds = error.parameters?.retry_after;
    // 403: blocked by the user or the chat is gone; 400: chat not found. Retrying won't help.
    const permanent = code === 403 || (code === 400 && /chat not found/i.test(error.description));
    return new DeliveryError(`Telegram refused the message: ${code} ${error.description}`, {
      permanent,
      retryAfterMs: retryAfterSeconds !== undefined ? retryAfterSeconds * 1000 : undefined,
      cause: error,
    });
  }
  return new DeliveryError("could not reach Telegram", { permanent: false, cause: error });
}
