/**
 * How the bot reaches the Bot API: Telegraf's own client, over an HTTP agent that gives up
 * on a call Telegram leaves unanswered. Telegraf itself waits up to 500 s for an answer;
 * a call hanging that long would hold a Confirm for minutes and outlast the notifier's
 * lease on a notice, so that another replica would send the notice a second time.
 */
import { type ClientRequestArgs, Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent, type RequestOptions } from "node:https";
import { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { Telegram } from "telegraf";

/** Every Bot API call but the long poll is answered within this, or fails. */
export const TELEGRAM_CALL_TIMEOUT_MS = 10_000;

/** A call Telegram did not answer in time. It may still have been carried out. */
export class TelegramTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`Telegram did not answer within ${timeoutMs} ms`);
    this.name = "TelegramTimeoutError";
  }
}

/** A socket that is silent for `timeoutMs` while a call waits on it is destroyed. */
function arm<S extends Duplex | null | undefined>(stream: S, timeoutMs: number): S {
  if (stream instanceof Socket) {
    stream.setTimeout(timeoutMs);
    stream.on("timeout", () => stream.destroy(new TelegramTimeoutError(timeoutMs)));
  }
  return stream;
}

class DeadlineHttpAgent extends HttpAgent {
  readonly #timeoutMs: number;

  constructor(timeoutMs: number) {
    // `timeout` makes the agent set the socket timeout again each time it reuses a socket.
    super({ keepAlive: true, keepAliveMsecs: 10_000, timeout: timeoutMs });
    this.#timeoutMs = timeoutMs;
  }

  override createConnection(
    options: ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ) {
    return arm(super.createConnection(options, callback), this.#timeoutMs);
  }
}

class DeadlineHttpsAgent extends HttpsAgent {
  readonly #timeoutMs: number;

  constructor(timeoutMs: number) {
    super({ keepAlive: true, keepAliveMsecs: 10_000, timeout: timeoutMs });
    this.#timeoutMs = timeoutMs;
  }

  override createConnection(
    options: RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ) {
    return arm(super.createConnection(options, callback), this.#timeoutMs);
  }
}

/** An agent for `apiRoot` (http or https) whose calls fail after `timeoutMs` of silence. */
export function deadlineAgent(apiRoot: string, timeoutMs: number): HttpAgent {
  return new URL(apiRoot).protocol === "https:"
    ? new DeadlineHttpsAgent(timeoutMs)
    : new DeadlineHttpAgent(timeoutMs);
}

/**
 * A Telegraf client for `apiRoot` whose calls end within `timeoutMs`. Replies go out as API
 * calls we can await and check, never in a webhook's answer.
 */
export function boundedTelegram(
  token: string,
  apiRoot: string,
  timeoutMs = TELEGRAM_CALL_TIMEOUT_MS,
): Telegram {
  const telegram = new Telegram(token, { apiRoot, webhookReply: false });
  // Set after construction: Telegraf drops any agent given for an http:// root (its default
  // agent speaks https). Ours fits the root's protocol, so the local emulator gets it too.
  telegram.options.agent = deadlineAgent(apiRoot, timeoutMs);
  return telegram;
}

/**
 * A client for long polling: a `getUpdates` waits up to `pollTimeoutSeconds` by design, so
 * its deadline is that plus a margin.
 */
export function longPollTelegram(token: string, apiRoot: string, pollTimeoutSeconds: number) {
  return boundedTelegram(token, apiRoot, (pollTimeoutSeconds + 10) * 1000);
}
