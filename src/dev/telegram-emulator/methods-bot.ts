/**
 * Bot API methods about the bot itself and how it receives updates: getMe, getUpdates,
 * the webhook, callback query answers and the command menu.
 */
import { isLoopbackHost } from "../../config/env-values.js";
import type { MethodContext, MethodHandler } from "./methods.js";
import {
  AnswerCallbackQueryParams,
  CommandTargetParams,
  DeleteWebhookParams,
  GetUpdatesParams,
  parseParams,
  SetMyCommandsParams,
  SetWebhookParams,
} from "./params.js";
import { BotApiError, badRequest } from "./types.js";
import { DEFAULT_MAX_CONNECTIONS, MAX_CONNECTIONS_RANGE } from "./webhook.js";

const WEBHOOK_CONFLICT =
  "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first";

const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;
const COMMAND_NAME = /^[a-z0-9_]{1,32}$/;
const MAX_COMMANDS = 100;
const MAX_DESCRIPTION_LENGTH = 256;

function getMe({ core }: MethodContext) {
  return core.bot;
}

function getUpdates({ core, request, signal }: MethodContext) {
  if (core.webhook.active) throw new BotApiError(409, WEBHOOK_CONFLICT);
  return core.updates.poll(parseParams(GetUpdatesParams, request.params), signal);
}

/** Telegram demands HTTPS on a public address; the emulator only ever calls loopback. */
function checkWebhookUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest("bad webhook: Failed to resolve host: Name or service not known");
  }
  if (!["http:", "https:"].includes(parsed.protocol)) {
    throw badRequest("bad webhook: An HTTPS URL must be provided for webhook");
  }
  if (!isLoopbackHost(parsed.hostname)) {
    throw badRequest("bad webhook: the emulator delivers only to loopback addresses");
  }
}

function setWebhook({ core, request }: MethodContext) {
  const params = parseParams(SetWebhookParams, request.params);
  if (params.url === "") {
    core.webhook.clear();
    return true;
  }
  checkWebhookUrl(params.url);
  const secretToken = params.secret_token;
  if (secretToken !== undefined && !SECRET_TOKEN.test(secretToken)) {
    throw badRequest("secret token contains unallowed characters");
  }
  if (params.drop_pending_updates) core.updates.dropPending();
  core.updates.setAllowedUpdates(params.allowed_updates);
  core.updates.endWaitingPoll(new BotApiError(409, WEBHOOK_CONFLICT));
  // The Bot API server clamps the number into 1-100 rather than refusing it.
  const maxConnections = Math.min(
    Math.max(params.max_connections ?? DEFAULT_MAX_CONNECTIONS, MAX_CONNECTIONS_RANGE.min),
    MAX_CONNECTIONS_RANGE.max,
  );
  core.webhook.set({ url: params.url, secretToken, maxConnections });
  return true;
}

function deleteWebhook({ core, request }: MethodContext) {
  const params = parseParams(DeleteWebhookParams, request.params);
  if (params.drop_pending_updates) core.updates.dropPending();
  core.webhook.clear();
  return true;
}

function getWebhookInfo({ core }: MethodContext) {
  const webhook = core.webhook.snapshot();
  const allowedUpdates = core.updates.allowedUpdates;
  return {
    url: webhook.url,
    has_custom_certificate: false,
    pending_update_count: core.updates.pendingCount,
    ...(webhook.lastErrorDate === undefined
      ? {}
      : { last_error_date: webhook.lastErrorDate, last_error_message: webhook.lastErrorMessage }),
    ...(allowedUpdates === undefined ? {} : { allowed_updates: allowedUpdates }),
  };
}

function answerCallbackQuery({ core, request }: MethodContext) {
  const params = parseParams(AnswerCallbackQueryParams, request.params);
  core.answerCallback({
    callbackQueryId: params.callback_query_id,
    text: params.text,
    showAlert: params.show_alert ?? false,
    url: params.url,
  });
  return true;
}

function setMyCommands({ core, request }: MethodContext) {
  const params = parseParams(SetMyCommandsParams, request.params);
  if (params.commands.length > MAX_COMMANDS) throw badRequest("BOT_COMMANDS_TOO_MUCH");
  const commands = params.commands.map(({ command, description }) => {
    if (!COMMAND_NAME.test(command)) throw badRequest("BOT_COMMAND_INVALID");
    if (description.trim() === "" || description.length > MAX_DESCRIPTION_LENGTH) {
      throw badRequest("BOT_COMMAND_DESCRIPTION_INVALID");
    }
    return { command, description };
  });
  core.setCommands({ scope: params.scope, languageCode: params.language_code }, commands);
  return true;
}

function getMyCommands({ core, request }: MethodContext) {
  const params = parseParams(CommandTargetParams, request.params);
  return core.getCommands({ scope: params.scope, languageCode: params.language_code });
}

function deleteMyCommands({ core, request }: MethodContext) {
  const params = parseParams(CommandTargetParams, request.params);
  core.deleteCommands({ scope: params.scope, languageCode: params.language_code });
  return true;
}

export const BOT_METHODS: Readonly<Record<string, MethodHandler>> = {
  getMe,
  getUpdates,
  setWebhook,
  deleteWebhook,
  getWebhookInfo,
  answerCallbackQuery,
  setMyCommands,
  getMyCommands,
  deleteMyCommands,
};
