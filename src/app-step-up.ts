/**
 * Wires the step-up's Mini App routes (http/webapp/step-up-routes.ts) to the payout
 * steps: the item a PIN confirms (a payout, a batch or a schedule), the PIN set and
 * checked (payouts/pin.ts), and then the Confirm or Approve step the chat button calls
 * (`payouts.submission.confirm`, `schedules.confirm`…), given the proof. The chat prompt
 * the item came from is then edited to show where it stands, as a press in the chat
 * would (best effort: the item's own notices follow as usual).
 */
import type { Telegram } from "telegraf";
import { payerWaitingView } from "./bot/messenger/approval-cards.js";
import { clampHtml } from "./bot/telegram/clamp.js";
import { PromptWatch } from "./bot/telegram/prompt-watch.js";
import { editMessageView } from "./bot/telegram/reply.js";
import { operatorName, payoutStateView, type View } from "./bot/views/common.js";
import { recurrenceText, runTimeText, scheduleStateView } from "./bot/views/schedule.js";
import type { StepUpConfig } from "./config/step-up.js";
import type { WebAppUser } from "./http/webapp/auth.js";
import type {
  StepUpAction,
  StepUpBatch,
  StepUpItem,
  StepUpSchedule,
  StepUpSteps,
} from "./http/webapp/step-up-routes.js";
import { type Translate, translator } from "./i18n.js";
import type { Logger } from "./logger.js";
import type { Batch } from "./model/batch.js";
import type { Payout } from "./model/payout.js";
import { formatPhone } from "./model/phone.js";
import type { Schedule } from "./model/schedule.js";
import type { Payouts } from "./payouts/payouts.js";
import { mayDecide } from "./payouts/policy.js";
import type { SubmitResult } from "./payouts/types.js";
import type { Stores } from "./store/types.js";

export interface StepUpWiring {
  stores: Stores;
  payouts: Payouts;
  stepUp: StepUpConfig;
  telegram: Telegram;
  logger: Logger;
  timeZone: string;
  now: () => number;
  /** A batch was confirmed or approved: the batch worker has work. */
  onBatchWork?: () => void;
  /** Shared with the notifier's messenger: a final status is never left under "Pending". */
  prompts?: PromptWatch;
}

function batchOf(batch: Batch): StepUpBatch {
  return {
    id: batch.id,
    fileName: batch.fileName,
    rows: batch.payableRows ?? batch.rowCount,
    totalXaf: batch.totalXaf ?? 0,
    expiresAtMs: batch.state === "ready" ? batch.expiresAtMs : batch.approvalExpiresAtMs,
  };
}

function itemOf(payout: Payout): StepUpItem {
  return {
    id: payout.id,
    kind: payout.kind,
    amount: payout.amount,
    recipientName: payout.recipientName,
    phone: formatPhone(payout.phone),
    operator: operatorName(payout.operator),
    note: payout.note,
    expiresAtMs: payout.expiresAtMs,
  };
}

/** A schedule's prompt or card, in `t`'s words: the plan and the next three runs. */
function scheduleOf(t: Translate, schedule: Schedule, runs: number[]): StepUpSchedule {
  return {
    id: schedule.id,
    recipientName: schedule.recipientName,
    phone: formatPhone(schedule.phone),
    operator: operatorName(schedule.operator),
    amount: schedule.amount,
    note: schedule.note,
    plan: recurrenceText(t, schedule.recurrence),
    nextRuns: runs.map((atMs) => runTimeText(t, atMs)),
    expiresAtMs: schedule.expiresAtMs,
  };
}

function done(result: string, state: string) {
  return { outcome: "confirmed" as const, result, state };
}

function submittedOutcome(outcome: SubmitResult["outcome"]): string {
  return outcome === "refused" ? "rejected_by_api" : outcome;
}

function pick(input: { duplicateSeenAtMs?: number }) {
  return input.duplicateSeenAtMs === undefined
    ? {}
    : { duplicateSeenAtMs: input.duplicateSeenAtMs };
}

export function stepUpSteps(wiring: StepUpWiring): StepUpSteps {
  const { stores, payouts, stepUp, telegram, logger, timeZone, now } = wiring;
  const onBatchWork = wiring.onBatchWork ?? (() => {});
  const prompts = wiring.prompts ?? new PromptWatch(now);

  /**
   * The payout at or over the threshold that waits for the caller's `action`: their own
   * prompt's Confirm, or (`approve`) an Approve they may make (not their own payout).
   */
  /** The batch at or over the threshold waiting for the caller's Confirm or Approve. */
  const waitingBatch = async (
    user: WebAppUser,
    action: "batch-confirm" | "batch-approve",
    batchId: string,
  ): Promise<Batch | null> => {
    const batch = await stores.batches.get(batchId);
    if (batch === null || (batch.totalXaf ?? 0) < stepUp.thresholdXaf) return null;
    if (action === "batch-approve") {
      const asker = { userId: user.id, role: user.role };
      const may = batch.state === "awaiting_approval" && mayDecide(asker, batch) === "allowed";
      return may ? batch : null;
    }
    if (batch.initiatorId !== user.id || batch.state !== "ready") return null;
    return batch.expiresAtMs === undefined || batch.expiresAtMs >= now() ? batch : null;
  };

  /**
   * The schedule at or over the threshold waiting for the caller's Confirm (their own
   * prompt, not expired) or Approve (one they may decide: an approver, not its owner).
   */
  const waitingSchedule = async (
    user: WebAppUser,
    action: "schedule-confirm" | "schedule-approve",
    scheduleId: string,
  ): Promise<Schedule | null> => {
    const schedule = await stores.schedules.get(scheduleId);
    if (schedule === null || schedule.amount < stepUp.thresholdXaf) return null;
    if (action === "schedule-approve") {
      const asker = { userId: user.id, role: user.role };
      const decider = mayDecide(asker, { initiatorId: schedule.ownerId }) === "allowed";
      const may = schedule.state === "awaiting_approval" && decider;
      return may ? schedule : null;
    }
    if (schedule.ownerId !== user.id || schedule.state !== "awaiting_confirmation") return null;
    return schedule.expiresAtMs >= now() ? schedule : null;
  };

  /** The schedule's prompt shows what the PIN's Confirm did, as after a press in the chat. */
  const showScheduleInChat = async (schedule: Schedule) => {
    if (schedule.messageId === undefined) return;
    const t = translator(schedule.locale, timeZone);
    const runs = payouts.schedules.nextRuns(schedule.recurrence);
    const view = scheduleStateView(t, schedule, runs);
    try {
      await telegram.editMessageText(
        schedule.chatId,
        schedule.messageId,
        undefined,
        clampHtml(view.text),
        { parse_mode: "HTML", reply_markup: { inline_keyboard: [] } },
      );
    } catch (error) {
      logger.info(
        { err: error, scheduleId: schedule.id },
        "could not update the schedule's prompt after a PIN confirm",
      );
    }
  };

  const waiting = async (
    user: WebAppUser,
    action: StepUpAction,
    payoutId: string,
  ): Promise<Payout | null> => {
    const payout = await stores.payouts.get(payoutId);
    if (payout === null || payout.kind !== "disbursement") return null;
    if (payout.amount < stepUp.thresholdXaf) return null;
    const asker = { userId: user.id, role: user.role };
    if (action === "approve") {
      const may = payout.state === "awaiting_approval" && mayDecide(asker, payout) === "allowed";
      return may ? payout : null;
    }
    if (payout.initiatorId !== user.id) return null;
    return payout.state === "awaiting_confirmation" && payout.expiresAtMs >= now() ? payout : null;
  };

  /** The chat prompt shows what the Confirm did, as after a press in the chat. */
  const showInChat = async (payout: Payout) => {
    if (payout.messageId === undefined) return;
    const view = payoutStateView(translator(payout.locale, timeZone), payout);
    await showView(payout.chatId, payout.messageId, view);
  };

  /** The chat prompt waits for approval: the approvers' names and its Withdraw button. */
  const showWaitingInChat = async (payout: Payout, approverIds: readonly number[]) => {
    if (payout.messageId === undefined) return;
    const t = translator(payout.locale, timeZone);
    const view = await payerWaitingView(t, stores.profiles, payout, approverIds);
    await showView(payout.chatId, payout.messageId, view);
  };

  const showView = async (chatId: number, messageId: number, view: View) => {
    try {
      await editMessageView(telegram, chatId, messageId, view);
    } catch (error) {
      logger.info({ err: error, messageId }, "could not update the prompt after a PIN confirm");
    }
  };

  return {
    async item(user, action, id) {
      if (action === "schedule-confirm" || action === "schedule-approve") {
        const schedule = await waitingSchedule(user, action, id);
        if (schedule === null) return null;
        const runs = payouts.schedules.nextRuns(schedule.recurrence).map((run) => run.atMs);
        return { schedule: scheduleOf(translator(user.language, timeZone), schedule, runs) };
      }
      if (action === "batch-confirm" || action === "batch-approve") {
        const batch = await waitingBatch(user, action, id);
        return batch === null ? null : { batch: batchOf(batch) };
      }
      const payout = await waiting(user, action, id);
      return payout === null ? null : { payout: itemOf(payout) };
    },
    pinStatus: (user) => payouts.pins.status(user.id),
    setPin: (user, pin, repeat, signedAtMs) =>
      payouts.pins.set({ userId: user.id, role: user.role }, pin, repeat, signedAtMs),
    async act(user, action, payoutId, input) {
      const member = { userId: user.id, role: user.role };
      // The item first: no try is spent on a payout that is not the caller's to act on.
      const batchAction = action === "batch-confirm" || action === "batch-approve";
      const scheduleAction = action === "schedule-confirm" || action === "schedule-approve";
      const item = scheduleAction
        ? await waitingSchedule(user, action, payoutId)
        : batchAction
          ? await waitingBatch(user, action, payoutId)
          : await waiting(user, action, payoutId);
      if (item === null) return { outcome: "not_found" };
      const checked = await payouts.pins.check(member, input.pin);
      switch (checked.outcome) {
        case "right":
          break;
        case "wrong":
          return { outcome: "pin", result: "wrong", left: checked.left };
        case "locked":
          return { outcome: "pin", result: "locked", untilMs: checked.untilMs };
        default:
          return { outcome: "pin", result: checked.outcome };
      }
      if (scheduleAction) {
        // The same steps as the prompt's Confirm and the card's Approve; the scheduler pays.
        const moved =
          action === "schedule-confirm"
            ? await payouts.schedules.confirm(payoutId, member, checked.proof)
            : await payouts.schedules.decide(payoutId, member, true, checked.proof);
        if (moved.outcome === "not_found") return done("not_found", "");
        if (action === "schedule-confirm" && moved.outcome !== "already") {
          await showScheduleInChat(moved.schedule);
        }
        return done(moved.outcome, moved.schedule.state);
      }
      if (batchAction) {
        // The same steps as the preview's Confirm and the card's Approve; the worker pays.
        const moved =
          action === "batch-confirm"
            ? await payouts.batches.confirm(payoutId, member, checked.proof)
            : await payouts.batchApproval.approve(payoutId, member, checked.proof);
        if (moved.outcome === "done") onBatchWork();
        if (moved.outcome === "not_found") return done("not_found", "");
        return done(moved.outcome, moved.batch.state);
      }
      if (action === "approve") {
        // The same step as the card's Approve button, then the same submission.
        const options = { pin: checked.proof, ...pick(input) };
        const decision = await payouts.approval.approve(payoutId, member, options);
        if (decision.outcome === "not_found") return done("not_found", "");
        if (decision.outcome === "duplicate") {
          // Shown on the page; sent back with the PIN, it approves anyway (as the card's button).
          return { outcome: "duplicate", duplicateSeenAtMs: decision.duplicate.createdAtMs };
        }
        if (decision.outcome !== "claimed") return done(decision.outcome, decision.payout.state);
        const submitted = await payouts.submission.submit(decision);
        return done(submittedOutcome(submitted.outcome), submitted.payout.state);
      }
      // The same step as the chat's Confirm button: the claim, then the one request.
      const claim = await payouts.submission.confirm(payoutId, member, checked.proof);
      if (claim.outcome === "not_found") return done("not_found", "");
      if (claim.outcome !== "claimed") {
        if (claim.outcome === "approval_requested") {
          await showWaitingInChat(claim.payout, claim.approvers);
        }
        return done(claim.outcome, claim.payout.state);
      }
      const { chatId, messageId } = claim.payout;
      const edits = await prompts.editing<SubmitResult, View>(chatId, messageId, async () => {
        const result = await claim.submitted;
        await showInChat(result.payout);
        return result;
      });
      // Settled, and edited by the notifier, while this edit was on its way: put it back.
      const { result: submitted, settled } = edits;
      if (settled && messageId !== undefined) await showView(chatId, messageId, settled);
      return done(submittedOutcome(submitted.outcome), submitted.payout.state);
    },
  };
}
