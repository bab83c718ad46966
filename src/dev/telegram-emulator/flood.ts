/**
 * Telegram's flood control, for tests that check the bot keeps Telegram's limits: message
 * calls past a group's per-window count or past the rate across chats are refused with
 * 429 and `retry_after`, and a chat refused so is refused again (and the call recorded as
 * early) until its `retry_after` has passed, as Telegram does. Off unless a test turns it on.
 */
import { BotApiError } from "./types.js";

/** The calls Telegram's limits count: those that put a message in a chat or change one. */
const COUNTED = new Set(
  [
    "sendMessage",
    "sendDocument",
    "sendPhoto",
    "sendMediaGroup",
    "copyMessage",
    "forwardMessage",
    "editMessageText",
    "editMessageCaption",
    "editMessageReplyMarkup",
    "editMessageMedia",
  ].map((method) => method.toLowerCase()),
);

export interface FloodLimits {
  /** Message calls allowed in one group (negative chat id) within `groupWindowMs`. */
  groupPerWindow?: number;
  /** Default 60 000 ms. */
  groupWindowMs?: number;
  /** Message calls allowed across all chats within any 1000 ms. */
  perSecond?: number;
  /** `retry_after` of a refusal. Default: until the window lets the call through, at least 1 s. */
  retryAfterSeconds?: number;
}

/** A call refused by flood control, and why. */
export interface FloodRefusal {
  readonly method: string;
  readonly chatId: string | undefined;
  readonly atMs: number;
  readonly retryAfterSeconds: number;
  /**
   * `group`: over the group's count; `global`: over the rate across chats; `early`: the
   * chat was written to before the `retry_after` of an earlier refusal had passed.
   */
  readonly reason: "group" | "global" | "early";
}

export class FloodControl {
  readonly #limits: FloodLimits;
  readonly refusals: FloodRefusal[] = [];
  /** Accepted counted calls: when, per chat, and across chats. */
  readonly #byChat = new Map<string, number[]>();
  readonly #all: number[] = [];
  readonly #blockedUntil = new Map<string, number>();

  constructor(limits: FloodLimits) {
    this.#limits = limits;
  }

  /** The refusal for this call, or undefined when Telegram would let it through. */
  check(method: string, params: Readonly<Record<string, unknown>>, nowMs: number) {
    const chatId = chatOf(params);
    const key = chatId ?? "";
    const blockedUntil = this.#blockedUntil.get(key) ?? 0;
    if (nowMs < blockedUntil) {
      return this.#refuse(method, chatId, nowMs, "early", blockedUntil - nowMs);
    }
    if (!COUNTED.has(method.toLowerCase())) return undefined;
    const { groupPerWindow, perSecond } = this.#limits;
    const windowMs = this.#limits.groupWindowMs ?? 60_000;
    if (groupPerWindow !== undefined && chatId !== undefined && isGroup(chatId)) {
      const times = this.#byChat.get(chatId) ?? [];
      const recent = times.filter((atMs) => atMs > nowMs - windowMs);
      this.#byChat.set(chatId, recent);
      if (recent.length >= groupPerWindow) {
        const freeInMs = (recent[recent.length - groupPerWindow] ?? nowMs) + windowMs - nowMs;
        return this.#refuse(method, chatId, nowMs, "group", freeInMs);
      }
    }
    if (perSecond !== undefined) {
      while (this.#all.length > 0 && (this.#all[0] ?? 0) <= nowMs - 1000) this.#all.shift();
      if (this.#all.length >= perSecond) {
        const freeInMs = (this.#all[0] ?? nowMs) + 1000 - nowMs;
        return this.#refuse(method, chatId, nowMs, "global", freeInMs);
      }
    }
    if (chatId !== undefined) {
      const times = this.#byChat.get(chatId) ?? [];
      times.push(nowMs);
      this.#byChat.set(chatId, times);
    }
    this.#all.push(nowMs);
    return undefined;
  }

  #refuse(
    method: string,
    chatId: string | undefined,
    nowMs: number,
    reason: FloodRefusal["reason"],
    freeInMs: number,
  ): BotApiError {
    const retryAfterSeconds =
      this.#limits.retryAfterSeconds ?? Math.max(1, Math.ceil(freeInMs / 1000));
    // Telegram holds the chat (or, for the rate across chats, the bot) for that long.
    const key = reason === "global" ? "" : (chatId ?? "");
    const until = Math.max(this.#blockedUntil.get(key) ?? 0, nowMs + retryAfterSeconds * 1000);
    this.#blockedUntil.set(key, until);
    this.refusals.push({ method, chatId, atMs: nowMs, retryAfterSeconds, reason });
    return new BotApiError(
      429,
      `Too Many Requests: retry after ${retryAfterSeconds}`,
      retryAfterSeconds,
    );
  }

  /** Holds `chatId` for `retryAfterSeconds` from `nowMs`, as a refusal would. */
  hold(chatId: string, nowMs: number, retryAfterSeconds: number): void {
    const until = Math.max(this.#blockedUntil.get(chatId) ?? 0, nowMs + retryAfterSeconds * 1000);
    this.#blockedUntil.set(chatId, until);
  }
}

function chatOf(params: Readonly<Record<string, unknown>>): string | undefined {
  const chatId = params.chat_id;
  return typeof chatId === "number" || typeof chatId === "string" ? String(chatId) : undefined;
}

function isGroup(chatId: string): boolean {
  return chatId.startsWith("-") || chatId.startsWith("@");
}

/**
 * The most `methods` calls to `chatId` (undefined: to any chat) that fell within any
 * `windowMs`, among `calls` (the emulator's record, oldest first).
 */
export function busiestWindow(
  calls: ReadonlyArray<{ method: string; params: Readonly<Record<string, unknown>>; atMs: number }>,
  windowMs: number,
  chatId?: number | string,
): number {
  const times = calls
    .filter((call) => COUNTED.has(call.method.toLowerCase()))
    .filter((call) => chatId === undefined || chatOf(call.params) === String(chatId))
    .map((call) => call.atMs);
  let most = 0;
  let start = 0;
  for (let end = 0; end < times.length; end += 1) {
    while ((times[end] ?? 0) - (times[start] ?? 0) >= windowMs) start += 1;
    most = Math.max(most, end - start + 1);
  }
  return most;
}
