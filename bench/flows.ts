/**
 * The user side of the Telegram benchmarks: emulated staff going through /pay → prompt →
 * Confirm → Pending, or sending a line to the echo bot, with each step timed from the
 * moment the update is queued at the emulator to the moment the bot's message or edit
 * reaches it (both instants on this process's `performance.now()` clock).
 */
import {
  type EmulatedUser,
  plainText,
  type SentMessage,
  type TelegramEmulator,
} from "../src/dev/telegram-emulator/index.js";

export type MessageKind = "message" | "edit";

/** A bot message or edit and when the emulator got it. */
export interface Observed {
  message: SentMessage;
  kind: MessageKind;
  atMs: number;
}

interface Waiter {
  /** undefined: any chat. */
  chatId: number | undefined;
  accepts: (message: SentMessage, kind: MessageKind) => boolean;
  resolve: (observed: Observed) => void;
}

/** Turns the emulator's events into awaitable "next matching message" calls, timestamped. */
export class MessageWatcher {
  readonly #waiters = new Set<Waiter>();

  constructor(emulator: TelegramEmulator) {
    emulator.on("message", (message) => this.#check(message, "message"));
    emulator.on("edit", (message) => this.#check(message, "edit"));
  }

  /**
   * The next bot message or edit (in `chatId`, or anywhere when undefined) that `accepts`;
   * rejects after `timeoutMs`. Call it before the action that causes the message.
   */
  next(
    chatId: number | undefined,
    accepts: (message: SentMessage, kind: MessageKind) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<Observed> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        chatId,
        accepts,
        resolve: (observed) => {
          clearTimeout(timer);
          resolve(observed);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`the bot did not answer (${what}) within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  #check(message: SentMessage, kind: MessageKind): void {
    const atMs = performance.now();
    for (const waiter of this.#waiters) {
      if (waiter.chatId !== undefined && waiter.chatId !== message.chatId) continue;
      if (!waiter.accepts(message, kind)) continue;
      this.#waiters.delete(waiter);
      waiter.resolve({ message, kind, atMs });
    }
  }
}

/** A step should never take this long; past it the benchmark is broken, not slow. */
export const STEP_TIMEOUT_MS = 15_000;

function hasButtons(message: SentMessage): boolean {
  return (message.replyMarkup?.length ?? 0) > 0;
}

/** The two timed steps of one /pay flow, in ms. */
export interface PayFlowTiming {
  /** `/pay <number> <amount>` queued → the prompt with the name and buttons. */
  promptMs: number;
  /** Confirm pressed → the prompt edited to "Pending". */
  confirmMs: number;
  /** The prompt's message (chat and id), now showing "Pending". */
  pending: SentMessage;
  /** When `/pay` was queued and Confirm pressed (`performance.now()`). */
  sentAtMs: number;
  pressedAtMs: number;
}

/** Waits `ms` (none for 0): a person reading before acting. */
function think(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/**
 * One complete /pay flow by `user` (an English-speaking payer), who thinks `thinkMs`
 * before each action (default 0: acts the moment the bot's message arrives).
 */
export async function payFlow(
  user: EmulatedUser,
  watcher: MessageWatcher,
  command: string,
  thinkMs = 0,
): Promise<PayFlowTiming> {
  const chatId = user.privateChat.id;
  await think(thinkMs);
  const prompt = watcher.next(
    chatId,
    (message, kind) => kind === "message" && hasButtons(message),
    STEP_TIMEOUT_MS,
    `${command} → prompt`,
  );
  const sentAtMs = performance.now();
  await user.sendText(command);
  const shown = await prompt;
  // The same amount to the same number again: the prompt warns, and Confirm reads "Pay again".
  const confirm = shown.message.replyMarkup
    ?.flat()
    .find((button) => /confirm|pay again/i.test(button.text));
  if (!confirm) throw new Error(`the prompt has no Confirm button: ${plainText(shown.message)}`);
  const pending = watcher.next(
    chatId,
    (message, kind) =>
      kind === "edit" &&
      message.messageId === shown.message.messageId &&
      plainText(message).includes("Pending"),
    STEP_TIMEOUT_MS,
    "Confirm → Pending",
  );
  await think(thinkMs);
  const pressedAtMs = performance.now();
  await user.pressButton(shown.message, confirm.text);
  const done = await pending;
  return {
    promptMs: shown.atMs - sentAtMs,
    confirmMs: done.atMs - pressedAtMs,
    pending: done.message,
    sentAtMs,
    pressedAtMs,
  };
}

/** One message to the echo bot (after `thinkMs`) and its answer; the round trip in ms. */
export async function echoRoundTrip(
  user: EmulatedUser,
  watcher: MessageWatcher,
  thinkMs = 0,
): Promise<number> {
  await think(thinkMs);
  const answered = watcher.next(
    user.privateChat.id,
    (_message, kind) => kind === "message",
    STEP_TIMEOUT_MS,
    "echo",
  );
  const sentAtMs = performance.now();
  await user.sendText("ping");
  const answer = await answered;
  return answer.atMs - sentAtMs;
}
