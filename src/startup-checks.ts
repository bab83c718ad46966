/**
 * The checks `startApp` makes before it takes updates: the Payment API answers with our
 * key, and Telegram knows our token. A failure stops the start with a `StartupError` that
 * names the call that failed and what came back, so a person can tell a wrong URL from a
 * wrong key from a server that is not what it should be.
 */
import type { Telegraf, Telegram } from "telegraf";
import { TelegramError } from "telegraf";
import type { UserFromGetMe } from "telegraf/types";
import { z } from "zod";
import type { BotContext } from "./bot/context.js";
import { describeTelegramFailure, excerpt } from "./bot/telegram/failures.js";
import { type Logger, redactToken } from "./logger.js";
import type { PaymentClient } from "./payments/client.js";
import {
  InvalidResponseError,
  PaymentApiError,
  PaymentClientError,
  PaymentNetworkError,
  PaymentTimeoutError,
  SignatureError,
} from "./payments/errors.js";
import type { AvailabilityEntry } from "./payments/schemas.js";

/**
 * A start-up failure with a message for a person (no stack trace needed): what went wrong
 * (`problem`) and, when one is known, what to do about it (`fix`); the message is both.
 * `npm run doctor` prints the two apart.
 */
export class StartupError extends Error {
  readonly problem: string;
  readonly fix: string | undefined;

  constructor(problem: string, options?: ErrorOptions & { fix?: string }) {
    super(options?.fix === undefined ? problem : `${problem}. ${options.fix}`, options);
    this.name = "StartupError";
    this.problem = problem;
    this.fix = options?.fix;
  }
}

/** The innermost cause's message, e.g. "connect ECONNREFUSED 127.0.0.1:8090". */
function rootCause(error: Error): string {
  let current: Error = error;
  while (current.cause instanceof Error) current = current.cause;
  return current.message;
}

const SIGNATURE_PROBLEMS: Readonly<Record<string, string>> = {
  missing: "without a signature (no X-Sig)",
  "bad-timestamp": "with an unreadable X-Sig-Timestamp",
  stale: "with a signature timestamp too far from this machine's clock",
  mismatch: "with a signature PAYMENT_SIGNATURE_PUBLIC_KEY does not verify",
};

/** "with a signature PAYMENT_SIGNATURE_PUBLIC_KEY does not verify", from SignatureError's problem. */
export function signatureInWords(problem: string): string {
  return SIGNATURE_PROBLEMS[problem] ?? `with a signature that is ${problem}`;
}

/** What the Payment API did with a request, in words. */
function paymentAnswer(error: PaymentClientError): string {
  if (error instanceof PaymentApiError) {
    return `answered ${error.statusCode}: ${excerpt(error.apiMessage) || "(no message)"}`;
  }
  if (error instanceof InvalidResponseError) {
    const problems = excerpt(error.problems.join("; "));
    return `answered ${error.statusCode} with a body that is not an availability list (${problems})`;
  }
  if (error instanceof SignatureError) return `answered ${signatureInWords(error.problem)}`;
  if (error instanceof PaymentTimeoutError) return `did not answer within ${error.timeoutMs} ms`;
  if (error instanceof PaymentNetworkError) return `did not answer (${rootCause(error)})`;
  return `failed: ${error.message}`;
}

/**
 * Checks the API key and base URL once with `GET /availability`, so a wrong one stops the
 * start with a clear message instead of failing the first payout.
 */
export async function checkPaymentApi(
  client: PaymentClient,
  baseUrl: string,
): Promise<AvailabilityEntry[]> {
  try {
    return await client.getAvailability();
  } catch (error) {
    // With request signing on, a 401 may be the signature's, not the key's.
    if (error instanceof PaymentApiError && error.statusCode === 401 && client.options.signingKey) {
      throw new StartupError(
        `The Payment API refused GET /availability (401: ${excerpt(error.apiMessage) || "no message"})`,
        {
          fix: "Check PAYMENT_API_KEY, and that the public half of PAYMENT_REQUEST_SIGNING_KEY is the key uploaded in the merchant portal.",
        },
      );
    }
    if (error instanceof PaymentApiError && error.statusCode === 401) {
      throw new StartupError("The Payment API refused PAYMENT_API_KEY (401) on GET /availability", {
        fix: "Check the key in the merchant portal.",
      });
    }
    if (!(error instanceof PaymentClientError)) throw error;
    const fix =
      error instanceof SignatureError
        ? "Check PAYMENT_SIGNATURE_PUBLIC_KEY."
        : "Check PAYMENT_API_BASE_URL.";
    throw new StartupError(
      `The Payment API at ${baseUrl} ${paymentAnswer(error)} on GET /availability`,
      { cause: error, fix },
    );
  }
}

/**
 * What the bot relies on in getMe's answer. Telegram always sends `is_bot: true`; some Bot
 * API emulators (telegram-test-api) leave it out, so only an explicit `false` is refused.
 */
const BotInfoSchema = z.looseObject({
  id: z.number(),
  is_bot: z.boolean().optional(),
  username: z.string().min(1),
});

/**
 * Asks Telegram who the bot is (getMe); stops the start when it cannot tell, or when the
 * answer says it is not a bot. A missing `is_bot` is warned about, not refused.
 */
export async function botIdentity(bot: Telegraf<BotContext>, logger: Logger): Promise<string> {
  const me = await askGetMe(bot.telegram);
  bot.botInfo = me.info;
  if (me.isBotMissing) {
    logger.warn(
      { username: me.username },
      "Telegram answered getMe without is_bot; going on (only is_bot: false is refused)",
    );
  }
  return me.username;
}

/**
 * getMe, read: the bot's username, what Telegram sent, and whether `is_bot` was left out.
 * Throws a StartupError (with a fix) when Telegram refuses the token, cannot be reached,
 * or answers with something that is not a bot.
 */
export async function askGetMe(
  telegram: Telegram,
): Promise<{ username: string; info: UserFromGetMe; isBotMissing: boolean }> {
  let info: UserFromGetMe;
  try {
    info = await telegram.getMe();
  } catch (error) {
    if (error instanceof TelegramError && error.code === 401) {
      throw new StartupError("Telegram refused TELEGRAM_BOT_TOKEN (401 Unauthorized) on getMe", {
        fix: "Copy the token from @BotFather again.",
      });
    }
    throw new StartupError(describeTelegramFailure("getMe", error), {
      cause: error,
      fix: "Check TELEGRAM_API_ROOT.",
    });
  }
  // Typed as a bot by Telegraf, but it is whatever the server sent.
  const me = BotInfoSchema.safeParse(info);
  if (!me.success || me.data.is_bot === false) {
    const body = excerpt(redactToken(JSON.stringify(info) ?? "nothing"));
    throw new StartupError(`Telegram answered getMe with something that is not a bot: ${body}`, {
      fix: "Check TELEGRAM_API_ROOT.",
    });
  }
  return { username: me.data.username, info, isBotMissing: me.data.is_bot === undefined };
}

/** A Telegram call the bot cannot run without (setWebhook, deleteWebhook): a failure stops the start. */
export async function requiredTelegramCall<T>(method: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new StartupError(`${describeTelegramFailure(method, error)}.`, { cause: error });
  }
}
