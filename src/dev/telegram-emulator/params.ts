/**
 * zod schemas of the Bot API method parameters the emulator implements. Telegram takes
 * parameters as JSON, query strings, urlencoded or multipart forms, so in the last three
 * every value arrives as text: numbers, booleans and JSON-valued fields (reply_markup,
 * commands, scope, allowed_updates) are coerced here, once, before any handler runs.
 */
import { z } from "zod";
import { badRequest } from "./types.js";

function fromText(parse: (text: string) => unknown) {
  return (value: unknown) =>
    typeof value === "string" && value.trim() !== "" ? parse(value) : value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const int = z.preprocess(fromText(Number), z.number().int());
const bool = z.preprocess(
  fromText((text) => (text === "true" ? true : text === "false" ? false : text)),
  z.boolean(),
);

function json<T extends z.ZodType>(schema: T) {
  return z.preprocess(fromText(parseJson), schema);
}

/** A chat id as callers send it: a number, its decimal text, or an `@username`. */
const chatId = z.union([z.number().int(), z.string().min(1)]);

export const ButtonSchema = z.looseObject({
  text: z.string(),
  callback_data: z.string().optional(),
  url: z.string().optional(),
  web_app: z.looseObject({ url: z.string() }).optional(),
});

/** Inline keyboards are typed; reply keyboards and the rest pass through untouched. */
const replyMarkup = json(
  z.looseObject({ inline_keyboard: z.array(z.array(ButtonSchema)).optional() }),
);

const parseMode = z.enum(["HTML", "MarkdownV2", "Markdown"]);

const allowedUpdates = json(z.array(z.string()));

export const GetUpdatesParams = z.looseObject({
  offset: int.optional(),
  limit: int.optional(),
  timeout: int.optional(),
  allowed_updates: allowedUpdates.optional(),
});

export const SendMessageParams = z.looseObject({
  chat_id: chatId,
  text: z.string(),
  parse_mode: parseMode.optional(),
  reply_markup: replyMarkup.optional(),
});

const messageTarget = {
  chat_id: chatId.optional(),
  message_id: int.optional(),
  inline_message_id: z.string().optional(),
};

export const EditMessageTextParams = z.looseObject({
  ...messageTarget,
  text: z.string(),
  parse_mode: parseMode.optional(),
  reply_markup: replyMarkup.optional(),
});

export const EditMessageReplyMarkupParams = z.looseObject({
  ...messageTarget,
  reply_markup: replyMarkup.optional(),
});

export const DeleteMessageParams = z.looseObject({ chat_id: chatId, message_id: int });

export const AnswerCallbackQueryParams = z.looseObject({
  callback_query_id: z.string().min(1),
  text: z.string().optional(),
  show_alert: bool.optional(),
  url: z.string().optional(),
  cache_time: int.optional(),
});

export const CommandSchema = z.looseObject({ command: z.string(), description: z.string() });

const ScopeSchema = z.looseObject({
  type: z.enum([
    "default",
    "all_private_chats",
    "all_group_chats",
    "all_chat_administrators",
    "chat",
    "chat_administrators",
    "chat_member",
  ]),
  chat_id: chatId.optional(),
  user_id: int.optional(),
});
export type CommandScopeParam = z.infer<typeof ScopeSchema>;

const commandTarget = {
  scope: json(ScopeSchema).optional(),
  language_code: z.string().optional(),
};

export const SetMyCommandsParams = z.looseObject({
  commands: json(z.array(CommandSchema)),
  ...commandTarget,
});

export const CommandTargetParams = z.looseObject(commandTarget);

export const SetWebhookParams = z.looseObject({
  url: z.string(),
  secret_token: z.string().optional(),
  drop_pending_updates: bool.optional(),
  allowed_updates: allowedUpdates.optional(),
  max_connections: int.optional(),
});

export const DeleteWebhookParams = z.looseObject({ drop_pending_updates: bool.optional() });

export const SendDocumentParams = z.looseObject({
  chat_id: chatId,
  document: z.string().optional(),
  caption: z.string().optional(),
  parse_mode: parseMode.optional(),
  reply_markup: replyMarkup.optional(),
});

export const SendPhotoParams = z.looseObject({
  chat_id: chatId,
  photo: z.string().optional(),
  caption: z.string().optional(),
  parse_mode: parseMode.optional(),
  reply_markup: replyMarkup.optional(),
});

export const GetFileParams = z.looseObject({ file_id: z.string().min(1) });

const CHAT_ACTIONS = [
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "upload_document",
  "choose_sticker",
  "find_location",
  "record_video_note",
  "upload_video_note",
] as const;

export const SendChatActionParams = z.looseObject({
  chat_id: chatId,
  action: z.enum(CHAT_ACTIONS),
});

/** Missing fields get Telegram's wording; anything else names the field and the problem. */
function describeIssue(issue: z.core.$ZodIssue, params: Record<string, unknown>): string {
  const field = String(issue.path[0] ?? "parameters");
  if (params[field] === undefined) {
    if (field === "text") return "message text is empty";
    return `${field} is empty`;
  }
  if (field === "parse_mode") return `unsupported parse_mode`;
  return `wrong ${issue.path.join(".")}: ${issue.message}`;
}

/** Parses a method's parameters or throws the 400 Telegram would answer. */
export function parseParams<T extends z.ZodType>(
  schema: T,
  params: Record<string, unknown>,
): z.output<T> {
  const result = schema.safeParse(params);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  throw badRequest(issue ? describeIssue(issue, params) : "invalid parameters");
}
