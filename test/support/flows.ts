/**
 * Steps of a chat with the bot that many end-to-end tests take: spotting a prompt,
 * confirming a /pay, and finding the payout it stored. Every wait starts before the action
 * it answers, as `TelegramEmulator.waitForMessage` requires.
 */

import { vi } from "vitest";
import {
  type EmulatedUser,
  plainText,
  type SentMessage,
  type TelegramEmulator,
} from "../../src/dev/telegram-emulator/index.js";
import type { Payout } from "../../src/model/payout.js";
import type { Stores } from "../../src/store/types.js";
import type { Harness } from "./harness.js";

type MessagePredicate = (message: SentMessage) => boolean;

/**
 * A message in `chatId` with buttons: a prompt waiting for Confirm or Cancel. A paid notice's
 * lone **Save recipient** button (`vr:`) does not make it one.
 */
export function isPromptIn(chatId: number): MessagePredicate {
  return (message) =>
    message.chatId === chatId &&
    (message.replyMarkup ?? []).flat().some((button) => !button.callback_data?.startsWith("vr:"));
}

/** A new message in `chatId` (not an edit of an earlier one): the bot's next reply. */
export function isNewReplyIn(chatId: number): MessagePredicate {
  return (message) => message.chatId === chatId && message.editCount === 0;
}

/** A new message in `chatId` whose text contains `text` (when other messages may come first). */
export function isNewReplyWith(chatId: number, text: string): MessagePredicate {
  return (message) =>
    message.chatId === chatId && message.editCount === 0 && plainText(message).includes(text);
}

/** `prompt` itself, edited, once its text contains `text` (e.g. "Pending"). */
export function isPromptReading(prompt: SentMessage, text: string): MessagePredicate {
  return (message) =>
    message.chatId === prompt.chatId &&
    message.messageId === prompt.messageId &&
    plainText(message).includes(text);
}

/** The bot's messages in `chatId` whose text contains `text`. */
export function messagesWith(
  emulator: TelegramEmulator,
  chatId: number,
  text: string,
): SentMessage[] {
  return emulator.messages(chatId).filter((m) => plainText(m).includes(text));
}

/**
 * Sends `text` as `user` and resolves with the first bot message then matching `until`
 * (default: a new message in the user's chat).
 */
export async function sendAndWait(
  emulator: TelegramEmulator,
  user: EmulatedUser,
  text: string,
  until: MessagePredicate = isNewReplyIn(user.id),
): Promise<SentMessage> {
  const answer = emulator.waitForMessage(until);
  await user.sendText(text);
  return answer;
}

/** Sends `command` (a /pay or /collect) as `user` and resolves with the prompt it brings up. */
export function showPrompt(
  emulator: TelegramEmulator,
  user: EmulatedUser,
  command: string,
): Promise<SentMessage> {
  return sendAndWait(emulator, user, command, isPromptIn(user.id));
}

export interface PressOptions {
  /** The button to press, by index or label. Default 0: Confirm. */
  button?: number | string;
  /** How long to wait for the answer; default the emulator's 5000 ms. */
  timeoutMs?: number;
}

/**
 * Presses a button (default Confirm) on `prompt` as `user` and resolves with the first
 * message then matching `until`; a string means `prompt` reading that text.
 */
export async function pressAndWait(
  emulator: TelegramEmulator,
  user: EmulatedUser,
  prompt: SentMessage,
  until: string | MessagePredicate,
  options: PressOptions = {},
): Promise<SentMessage> {
  const predicate = typeof until === "string" ? isPromptReading(prompt, until) : until;
  const answer = emulator.waitForMessage(predicate, options.timeoutMs);
  await user.pressButton(prompt, options.button ?? 0);
  return answer;
}

/**
 * Sends `command` (a /pay) as `user`, presses Confirm on the prompt, and resolves with
 * the prompt once it reads `stateText` (default "Pending").
 */
export async function payAndConfirm(
  emulator: TelegramEmulator,
  user: EmulatedUser,
  command: string,
  stateText = "Pending",
): Promise<SentMessage> {
  const prompt = await showPrompt(emulator, user, command);
  return pressAndWait(emulator, user, prompt, stateText);
}

/**
 * The payout stored for `prompt` (in a private chat), once it is, read from a harness's stores
 * or a world's (bot processes): the bot sends a prompt first and stores its
 * record (with the prompt's message id) right after, so a test reading the store the moment
 * the prompt appears waits for it here.
 */
export async function promptRecord(
  h: Harness | { stores: Pick<Stores, "payouts"> },
  prompt: SentMessage,
): Promise<Payout> {
  const { payouts } = "app" in h ? h.app.stores : h.stores;
  return vi.waitFor(
    async () => {
      const id = await payouts.openPrompt(prompt.chatId, prompt.chatId);
      const payout = id === null ? null : await payouts.get(id);
      if (payout?.messageId !== prompt.messageId) throw new Error("the prompt is not stored yet");
      return payout;
    },
    { timeout: 5_000, interval: 20 },
  );
}

/** A payout the Payment API accepted: it has its payment id. */
export type AcceptedPayout = Payout & { paymentId: string };

/**
 * Confirms `command` as `user` in harness `h` and waits for "Pending"; resolves with the
 * prompt as first shown and the payout stored for it (which has its payment id).
 */
export async function confirmPayout(
  h: Harness,
  user: EmulatedUser,
  command: string,
): Promise<{ prompt: SentMessage; payout: AcceptedPayout }> {
  const prompt = await showPrompt(h.emulator, user, command);
  await pressAndWait(h.emulator, user, prompt, "Pending");
  const { items } = await h.app.stores.payouts.list({ userId: user.id, offset: 0, limit: 5 });
  const payout = items.find((item) => item.messageId === prompt.messageId);
  if (!payout?.paymentId) throw new Error("the confirmed payout has no payment id");
  return { prompt, payout: { ...payout, paymentId: payout.paymentId } };
}
