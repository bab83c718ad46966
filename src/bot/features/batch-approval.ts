/**
 * Approve and Reject on the card of a batch sent for approval (the presser's role read
 * afresh for this very press): the first decision wins; an approved batch is paid by the
 * worker as a confirmed one. The cards themselves are the notifier's (messenger/batches.ts).
 */
import type { Composer } from "telegraf";
import type { MessageKey } from "../../i18n.js";
import type { BatchDecisionResult } from "../../payouts/batch/approval.js";
import type { Payouts } from "../../payouts/payouts.js";
import type { Stores } from "../../store/types.js";
import type { BotContext } from "../context.js";
import { namesOf } from "../messenger/people.js";
import { dropGoneButtons } from "../telegram/best-effort.js";
import { FlatComposer } from "../telegram/flat-composer.js";
import { editView } from "../telegram/reply.js";
import { BATCH_CALLBACK_PATTERN } from "../views/batch.js";
import { batchApprovalCard, batchPeople } from "../views/batch-approval.js";
import { money } from "../views/common.js";

export interface BatchApprovalDeps {
  payouts: Payouts;
  stores: Stores;
  /** Called when an approved batch has work for the worker. */
  onBatchWork: () => void;
}

/** Why a press may not decide a batch, in words. */
const FORBIDDEN_KEY = {
  own_payout: "batch.approve_own",
  not_allowed: "approve.not_allowed",
  too_new: "approve.too_new",
  initiator_gone: "approve.initiator_gone",
} as const satisfies Record<string, MessageKey>;

export function batchApprovalFeature(deps: BatchApprovalDeps): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  /** An approver's press on a batch's card: what came of it, and the card as it is now. */
  const decided = async (ctx: BotContext, result: BatchDecisionResult, doneKey: MessageKey) => {
    const { t } = ctx;
    switch (result.outcome) {
      case "not_found":
        return dropGoneButtons(ctx);
      case "forbidden": {
        const key = FORBIDDEN_KEY[result.why];
        return ctx.answerCbQuery(t.plain(key), { show_alert: true });
      }
      case "over_limit":
        return ctx.answerCbQuery(
          t.plain("batch.approve_over_limit", { left: money(t, result.over.leftXaf) }),
          { show_alert: true },
        );
      case "step_up_required":
        // Only the Mini App, with the PIN, approves this one (step-up/batch-approve/:id).
        ctx.log.warn({ batchId: result.batch.id }, "batch approve without the PIN refused");
        return ctx.answerCbQuery(t.plain("pin.batch_in_app"), { show_alert: true });
      case "already_signed":
        return ctx.answerCbQuery(t.plain("approve.already_signed"), { show_alert: true });
      case "signed": {
        const { given, needed } = result;
        return ctx.answerCbQuery(t.plain("batch.approve_signed", { given, needed }));
      }
      case "already":
      case "expired":
      case "done": {
        const key =
          result.outcome === "done"
            ? result.batch.state === "scheduled"
              ? "batch.approve_scheduled"
              : doneKey
            : result.outcome === "expired"
              ? "approve.expired"
              : "approve.already";
        await ctx.answerCbQuery(t.plain(key), { show_alert: result.outcome === "expired" });
        const { batch } = result;
        const names = await namesOf(deps.stores.profiles, batchPeople(batch));
        return editView(ctx, batchApprovalCard(t, batch, names, { skipped: [], count: 0 }));
      }
    }
  };

  composer.action(BATCH_CALLBACK_PATTERN.approve, async (ctx) => {
    const result = await deps.payouts.batchApproval.approve(ctx.match[1] ?? "", ctx.staff);
    if (result.outcome === "done") deps.onBatchWork();
    await decided(ctx, result, "batch.approve_done");
  });

  composer.action(BATCH_CALLBACK_PATTERN.reject, async (ctx) => {
    await decided(
      ctx,
      await deps.payouts.batchApproval.reject(ctx.match[1] ?? "", ctx.staff),
      "reject.done",
    );
  });

  return composer;
}
