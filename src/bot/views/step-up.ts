/**
 * The Confirm of a payout at or over STEP_UP_THRESHOLD_XAF: a Mini App button (`web_app`)
 * that opens the app on that payout, where the PIN is typed. Telegram allows `web_app`
 * buttons in private chats only; in a group the Confirm button is taken off and the
 * prompt says to open it from the private chat (money commands are refused in groups in
 * the first place, so that is a fallback, never the way in).
 */
import type { InlineKeyboardButton, InlineKeyboardMarkup } from "telegraf/types";
import type { Translate } from "../../i18n.js";
import { BATCH_CALLBACK } from "./batch.js";
import { CALLBACK, money, type View } from "./common.js";
import { SCHEDULE_CALLBACK } from "./schedule.js";

/** What the step-up needs to know: its threshold and where the Mini App is. */
export interface StepUpSettings {
  thresholdXaf: number;
  webAppUrl: string;
}

/**
 * What a PIN unlocks, as the Mini App's URL names it: the initiator's Confirm or an
 * approver's Approve of a payout, a batch or a schedule.
 */
export type PinAction =
  | "confirm"
  | "approve"
  | "batch-confirm"
  | "batch-approve"
  | "schedule-confirm"
  | "schedule-approve";

/**
 * The Mini App's URL opened on one step-up: `step_up=confirm.ID` in the query (Telegram
 * adds its own launch data after the `#`, so the query is the page's to read).
 */
export function stepUpUrl(webAppUrl: string, action: PinAction, id: string): string {
  const url = new URL(webAppUrl);
  url.searchParams.set("step_up", `${action}.${id}`);
  return url.toString();
}

/**
 * True when a payout of `amount` is confirmed and approved only with the PIN: money going
 * out (a collection only asks a customer to pay, on their own phone).
 */
export function needsStepUp(
  stepUp: StepUpSettings | undefined,
  amount: number,
  kind: "disbursement" | "collection" = "disbursement",
): boolean {
  return stepUp !== undefined && kind === "disbursement" && amount >= stepUp.thresholdXaf;
}

/**
 * The prompt with its Confirm button opening the Mini App (private chat), or taken off
 * with a line saying why (any other chat). Cancel stays a plain button.
 */
export function withPinConfirm(
  t: Translate,
  prompt: View,
  payoutId: string,
  stepUp: StepUpSettings,
  privateChat: boolean,
): View {
  const confirmData = CALLBACK.confirm(payoutId);
  const rows = prompt.keyboard?.inline_keyboard ?? [];
  const isConfirm = (button: InlineKeyboardButton) =>
    "callback_data" in button && button.callback_data === confirmData;
  const note = t(privateChat ? "pin.prompt_note" : "pin.private_only", {
    threshold: money(t, stepUp.thresholdXaf),
  });
  const inline_keyboard = rows
    .map((row) =>
      row.flatMap((button): InlineKeyboardButton[] => {
        if (!isConfirm(button)) return [button];
        if (!privateChat) return [];
        const url = stepUpUrl(stepUp.webAppUrl, "confirm", payoutId);
        return [{ text: t.plain("button.confirm_with_pin"), web_app: { url } }];
      }),
    )
    .filter((row) => row.length > 0);
  const keyboard: InlineKeyboardMarkup = { inline_keyboard };
  return { text: `${prompt.text}\n${note}`, keyboard };
}

/**
 * An approval card whose Approve (or "Approve anyway") opens the Mini App, where the
 * approver types their PIN, for a payout at or over the threshold; any other card as it
 * is. Cards go to the approvers' private chats, where `web_app` buttons are allowed.
 */
export function withPinApprove(
  t: Translate,
  card: View,
  payout: { id: string; amount: number; kind: "disbursement" | "collection" },
  stepUp: StepUpSettings | undefined,
): View {
  if (!stepUp || !needsStepUp(stepUp, payout.amount, payout.kind) || !card.keyboard) return card;
  const approveData = [CALLBACK.approve(payout.id), `A:${payout.id}:`];
  const isApprove = (button: InlineKeyboardButton) =>
    "callback_data" in button &&
    approveData.some(
      (data) => button.callback_data === data || button.callback_data.startsWith(data),
    );
  const url = stepUpUrl(stepUp.webAppUrl, "approve", payout.id);
  const inline_keyboard = card.keyboard.inline_keyboard.map((row) =>
    row.map(
      (button): InlineKeyboardButton =>
        isApprove(button) ? { text: t.plain("button.approve_with_pin"), web_app: { url } } : button,
    ),
  );
  const note = t("pin.approve_note", { threshold: money(t, stepUp.thresholdXaf) });
  return { text: `${card.text}\n${note}`, keyboard: { inline_keyboard } };
}

/**
 * `view` with the button whose callback data is `data` turned into a Mini App button
 * opening `action` on `id` (a private chat), or taken off (any other chat: `web_app`
 * buttons are for private chats only), and a line saying why. Any item with a Confirm or
 * Approve in the chat (a batch, a schedule, what comes next) goes through here.
 */
export function withPinButton(
  t: Translate,
  view: View,
  item: { data: string; action: PinAction; id: string },
  stepUp: StepUpSettings,
  privateChat: boolean,
): View {
  if (!view.keyboard) return view;
  const url = stepUpUrl(stepUp.webAppUrl, item.action, item.id);
  const confirming = item.action.endsWith("confirm");
  const buttonKey = confirming ? "button.confirm_with_pin" : "button.approve_with_pin";
  const inline_keyboard = view.keyboard.inline_keyboard
    .map((row) =>
      row.flatMap((button): InlineKeyboardButton[] => {
        if (!("callback_data" in button) || button.callback_data !== item.data) return [button];
        return privateChat ? [{ text: t.plain(buttonKey), web_app: { url } }] : [];
      }),
    )
    .filter((row) => row.length > 0);
  const noteKey = !privateChat
    ? "pin.private_only"
    : confirming
      ? "pin.prompt_note"
      : "pin.approve_note";
  const note = t(noteKey, { threshold: money(t, stepUp.thresholdXaf) });
  return { text: `${view.text}\n${note}`, keyboard: { inline_keyboard } };
}

/**
 * A batch's preview (`batch-confirm`) or approval card (`batch-approve`) whose Confirm or
 * Approve opens the Mini App when the batch's total is at or over the threshold. The
 * preview goes to the chat the file came from: a `web_app` button only in a private chat
 * (elsewhere the Confirm is taken off and a line says to open it in private).
 */
export function withPinBatch(
  t: Translate,
  view: View,
  batch: { id: string; totalXaf?: number | undefined },
  action: "batch-confirm" | "batch-approve",
  stepUp: StepUpSettings | undefined,
  privateChat: boolean,
): View {
  if (!stepUp || !needsStepUp(stepUp, batch.totalXaf ?? 0)) return view;
  const data =
    action === "batch-confirm"
      ? BATCH_CALLBACK.confirm(batch.id)
      : BATCH_CALLBACK.approve(batch.id);
  return withPinButton(t, view, { data, action, id: batch.id }, stepUp, privateChat);
}

/**
 * A schedule's prompt (`schedule-confirm`) or approval card (`schedule-approve`) whose
 * Confirm or Approve opens the Mini App when its amount per run is at or over the
 * threshold: the PIN is typed once, for every run.
 */
export function withPinSchedule(
  t: Translate,
  view: View,
  schedule: { id: string; amount: number },
  action: "schedule-confirm" | "schedule-approve",
  stepUp: StepUpSettings | undefined,
  privateChat: boolean,
): View {
  if (!stepUp || !needsStepUp(stepUp, schedule.amount)) return view;
  const data =
    action === "schedule-confirm"
      ? SCHEDULE_CALLBACK.confirm(schedule.id)
      : SCHEDULE_CALLBACK.approve(schedule.id);
  return withPinButton(t, view, { data, action, id: schedule.id }, stepUp, privateChat);
}
