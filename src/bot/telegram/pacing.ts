/**
 * Telegram's own limits, kept by the bot rather than learnt from 429s: about 20 messages a
 * minute (and about one a second) in one group, about 30 a second across chats for bulk
 * notices, and a `429` with `retry_after` waited out before that chat (or, without a chat,
 * the bot) is written to again. See https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this.
 *
 * One pacer is shared by every client of a process (the handlers' and the notices', of every
 * merchant of MERCHANTS_FILE: the limits are the bot token's), so a group's replies and its
 * progress edits count against the same minute. Slots are reserved when a call asks, so calls
 * made at once queue in order instead of all waking together. A call held for its own chat
 * (a group's minute, a 429's retry_after) takes its slot across chats at its own turn, and
 * calls to other chats take the free slots before it: one chat's wait never holds another
 * chat's notice (nor one merchant's, another's: docs/scaling.md).
 * Private chats are not paced (a person answers at human speed, and a reply must not wait);
 * only the notices' client is held to the rate across chats, since the handlers answer
 * people one update at a time.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { TelegramError } from "telegraf";

/** Calls that put a message in a chat or change one: what Telegram's flood limits count. */
const MESSAGE_METHODS: ReadonlySet<string> = new Set([
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
]);

export interface TelegramPacingOptions {
  /** Message calls across all chats a second, for the notices' client. Default 25 (Telegram: ~30). */
  broadcastPerSecond?: number;
  /** Message calls in one group within `groupWindowMs`. Default 18 (Telegram: ~20 a minute). */
  groupPerWindow?: number;
  /** The window of `groupPerWindow`. Default 60 000 ms. */
  groupWindowMs?: number;
  /** Least time between two message calls in one group. Default 1000 ms. */
  groupGapMs?: number;
  /**
   * Longest a call waits for its turn. A call whose turn is further away fails at once
   * with a 429 of our own (its `retry_after` says when the turn comes), so a caller is
   * never held past its deadline: the notifier then queues the notice for that time.
   * Default 5000 ms.
   */
  maxWaitMs?: number;
  now?: () => number;
}

/** Where one chat stands: when Telegram lets it be written to again, its recent slots. */
interface ChatPace {
  blockedUntilMs: number;
  /** Reserved slots of message calls in a group, oldest first (none for private chats). */
  slots: number[];
}

/** The chat a call is for: `chat_id` as Telegram reads it (a number, or "@channel"). */
export function chatOf(payload: unknown): string | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const chatId: unknown = Reflect.get(payload, "chat_id");
  return typeof chatId === "number" || typeof chatId === "string" ? String(chatId) : undefined;
}

/** Groups, supergroups and channels have negative ids (or an @username). */
function isGroup(chat: string): boolean {
  return chat.startsWith("-") || chat.startsWith("@");
}

/** The 429 of a call whose turn is too far away: Telegram's words, and when to try. */
function heldBack(method: string, payload: unknown, waitMs: number): TelegramError {
  const retryAfter = Math.ceil(waitMs / 1000);
  return new TelegramError(
    {
      error_code: 429,
      description: `Too Many Requests: retry after ${retryAfter} (held back by the bot to keep Telegram's limits)`,
      parameters: { retry_after: retryAfter },
    },
    { method, payload },
  );
}

/** The longest a call waits for its turn by default (past it, it fails at once with a 429). */
export const DEFAULT_MAX_WAIT_MS = 5000;

export class TelegramPacer {
  readonly #options: Required<TelegramPacingOptions>;
  readonly #chats = new Map<string, ChatPace>();
  /** Set by a 429 that named no chat: the whole bot waits. */
  #blockedUntilMs = 0;
  /** Slots reserved across chats by the notices' clients, in time order (none past use). */
  readonly #broadcastSlots: number[] = [];

  constructor(options: TelegramPacingOptions = {}) {
    this.#options = {
      broadcastPerSecond: options.broadcastPerSecond ?? 25,
      groupPerWindow: options.groupPerWindow ?? 18,
      groupWindowMs: options.groupWindowMs ?? 60_000,
      groupGapMs: options.groupGapMs ?? 1000,
      maxWaitMs: options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS,
      now: options.now ?? Date.now,
    };
    const { broadcastPerSecond, groupPerWindow, groupWindowMs, groupGapMs, maxWaitMs } =
      this.#options;
    if (!(broadcastPerSecond > 0) || !(groupPerWindow >= 1) || !(groupWindowMs > 0)) {
      throw new RangeError("Telegram pacing needs positive rates and windows");
    }
    if (!(groupGapMs >= 0) || !(maxWaitMs >= 0)) {
      throw new RangeError("Telegram pacing needs a gap and a wait of 0 or more");
    }
  }

  /** The longest `before` waits. */
  get maxWaitMs(): number {
    return this.#options.maxWaitMs;
  }

  /**
   * Waits for the turn of a call of `method` with `payload`; `broadcast` for the notices'
   * client (held to the rate across chats). Throws a TelegramError 429 at once when the
   * turn is more than `maxWaitMs` away (nothing is reserved then).
   */
  async before(
    method: string,
    payload: unknown,
    broadcast: boolean,
    signal?: AbortSignal,
  ): Promise<void> {
    const nowMs = this.#options.now();
    const chat = chatOf(payload);
    const pace = chat === undefined ? undefined : this.#pace(chat, nowMs);
    const counted = MESSAGE_METHODS.has(method) && chat !== undefined;
    let turnMs = Math.max(nowMs, this.#blockedUntilMs, pace?.blockedUntilMs ?? 0);
    const grouped = counted && chat !== undefined && isGroup(chat) && pace !== undefined;
    if (grouped) turnMs = Math.max(turnMs, this.#groupTurn(pace, turnMs));
    const paced = counted && broadcast;
    if (paced) turnMs = this.#broadcastTurn(turnMs, nowMs);
    const waitMs = turnMs - nowMs;
    if (waitMs > this.#options.maxWaitMs) throw heldBack(method, payload, waitMs);
    if (grouped) pace.slots.push(turnMs);
    if (paced) this.#reserveBroadcast(turnMs);
    if (waitMs > 0) await sleep(waitMs, undefined, signal ? { signal } : undefined);
    // A 429 that came while this call waited holds it too: the chat's retry_after is
    // waited out (within the same bound) rather than run into.
    for (;;) {
      const nowAfterMs = this.#options.now();
      const blockedUntilMs = Math.max(this.#blockedUntilMs, pace?.blockedUntilMs ?? 0);
      if (blockedUntilMs <= nowAfterMs) return;
      if (blockedUntilMs - nowMs > this.#options.maxWaitMs) {
        throw heldBack(method, payload, blockedUntilMs - nowAfterMs);
      }
      await sleep(blockedUntilMs - nowAfterMs, undefined, signal ? { signal } : undefined);
    }
  }

  /**
   * Whether a call of `method` with `payload` would go at once: not a message call (those
   * take slots) and no 429 holds its chat or the bot. Reserves nothing (a call that goes
   * outside `before`, in a webhook's reply, counts against nothing `before` keeps).
   */
  goesAtOnce(method: string, payload: unknown): boolean {
    if (MESSAGE_METHODS.has(method)) return false;
    const chat = chatOf(payload);
    const chatBlockedUntilMs =
      chat === undefined ? 0 : (this.#chats.get(chat)?.blockedUntilMs ?? 0);
    return Math.max(this.#blockedUntilMs, chatBlockedUntilMs) <= this.#options.now();
  }

  /**
   * Telegram refused a call with 429: nothing goes to that chat (or, when the call named
   * none, anywhere) until `retryAfterSeconds` have passed.
   */
  refused(payload: unknown, retryAfterSeconds: number): void {
    const untilMs = this.#options.now() + retryAfterSeconds * 1000;
    const chat = chatOf(payload);
    if (chat === undefined) {
      this.#blockedUntilMs = Math.max(this.#blockedUntilMs, untilMs);
      return;
    }
    const pace = this.#pace(chat, this.#options.now());
    pace.blockedUntilMs = Math.max(pace.blockedUntilMs, untilMs);
  }

  /** Chats the pacer remembers (slots within the window, or a block not yet over). */
  get trackedChats(): number {
    return this.#chats.size;
  }

  /**
   * The earliest slot across chats at or after `fromMs` that is a broadcast gap away from
   * every slot reserved: a free slot before a call that waits for its own chat is taken.
   */
  #broadcastTurn(fromMs: number, nowMs: number): number {
    const gapMs = 1000 / this.#options.broadcastPerSecond;
    const slots = this.#broadcastSlots;
    // Slots a gap in the past constrain no call from now on.
    let past = 0;
    while (past < slots.length && (slots[past] ?? 0) + gapMs <= nowMs) past += 1;
    slots.splice(0, past);
    let turnMs = fromMs;
    for (const slotMs of slots) {
      if (slotMs + gapMs <= turnMs) continue;
      if (slotMs >= turnMs + gapMs) break;
      turnMs = slotMs + gapMs;
    }
    return turnMs;
  }

  /** Keeps `turnMs` among the broadcast slots, in time order. */
  #reserveBroadcast(turnMs: number): void {
    const slots = this.#broadcastSlots;
    let at = slots.length;
    while (at > 0 && (slots[at - 1] ?? 0) > turnMs) at -= 1;
    slots.splice(at, 0, turnMs);
  }

  /** The earliest slot at or after `fromMs` that keeps the group's gap and its window. */
  #groupTurn(pace: ChatPace, fromMs: number): number {
    const { groupPerWindow, groupWindowMs, groupGapMs } = this.#options;
    const last = pace.slots.at(-1);
    let turnMs = last === undefined ? fromMs : Math.max(fromMs, last + groupGapMs);
    if (pace.slots.length >= groupPerWindow) {
      const oldestInWindow = pace.slots[pace.slots.length - groupPerWindow] ?? 0;
      turnMs = Math.max(turnMs, oldestInWindow + groupWindowMs);
    }
    return turnMs;
  }

  /** The chat's pace, its old slots dropped; chats with nothing left are forgotten. */
  #pace(chat: string, nowMs: number): ChatPace {
    this.#forgetIdle(nowMs);
    let pace = this.#chats.get(chat);
    if (!pace) {
      pace = { blockedUntilMs: 0, slots: [] };
      this.#chats.set(chat, pace);
    }
    return pace;
  }

  #sweptAtMs = 0;

  /** At most once a window: drops slots past the window and chats with nothing left. */
  #forgetIdle(nowMs: number): void {
    const { groupWindowMs } = this.#options;
    if (nowMs - this.#sweptAtMs < groupWindowMs) {
      return;
    }
    this.#sweptAtMs = nowMs;
    for (const [chat, pace] of this.#chats) {
      while (pace.slots.length > 0 && (pace.slots[0] ?? 0) <= nowMs - groupWindowMs) {
        pace.slots.shift();
      }
      if (pace.slots.length === 0 && pace.blockedUntilMs <= nowMs) this.#chats.delete(chat);
    }
  }
}
