/**
 * Batch payouts: a CSV document sent in a private chat (with or without /batch first)
 * becomes a batch to check; its preview's Confirm batch / Cancel, Stop while it runs,
 * /batches and /batch ID. The checks and the payments are the batch worker's.
 */
import type { Composer } from "telegraf";
import { message } from "telegraf/filters";
import { request } from "undici";
import { BATCH_STATE_KEY } from "../../csv/batch-keys.js";
import type { BatchStepResult, UploadResult } from "../../payouts/batch/batch.js";
import type { BatchFileProblem } from "../../payouts/batch/file.js";
import type { Payouts } from "../../payouts/payouts.js";
import { may } from "../../payouts/policy.js";
import type { Stores } from "../../store/types.js";
import type { BotContext } from "../context.js";
import { namesOf } from "../messenger/people.js";
import { FlatComposer } from "../telegram/flat-composer.js";
import { editView, replyHtml, replyView } from "../telegram/reply.js";
import {
  BATCH_CALLBACK_PATTERN,
  batchDetailView,
  batchListText,
  progressView,
} from "../views/batch.js";
import { batchPeople } from "../views/batch-approval.js";
import { money } from "../views/common.js";
import { planOf } from "./shared/caption-plan.js";
import { commandPayload } from "./shared/command-args.js";
import { UploadLimiter } from "./shared/upload-limiter.js";

export interface BatchDeps {
  payouts: Payouts;
  stores: Stores;
  now: () => number;
  /** Called when a batch has work for the worker (an upload, a Confirm). */
  onBatchWork: () => void;
}

const CSV_TYPES = new Set([
  "text/csv",
  "text/plain",
  "application/vnd.ms-excel",
  "application/csv",
]);

/** Files one person may send in a minute (one at a time). */
const UPLOADS_PER_MINUTE = 5;

/** A file refused: why, and that nothing was stored. */
async function refuse(ctx: BotContext, why: string): Promise<void> {
  await replyHtml(ctx, `${why} ${ctx.t("batch.nothing_stored")}`);
}

/** A size in whole megabytes, as the refusal says it (1 MB: 1,000,000 bytes). */
function megabytes(bytes: number): number {
  return Math.round(bytes / 1_000_000);
}

function problemText(ctx: BotContext, problem: BatchFileProblem): string {
  const { t } = ctx;
  switch (problem.kind) {
    case "empty":
      return t("batch.problem.empty");
    case "too_big":
      return t("batch.too_big", { mb: megabytes(problem.maxBytes) });
    case "too_many_rows":
      return t("batch.problem.too_many_rows", { max: problem.maxRows });
    case "too_many_blank_rows":
      return t("batch.problem.too_many_blank_rows", { max: problem.maxBlankRows });
    case "bad_encoding":
      return t("batch.problem.bad_encoding", { row: problem.row });
    case "not_csv":
      return t("batch.problem.not_csv", { row: problem.row, detail: problem.detail });
    case "missing_column":
      return t("batch.problem.missing_column", {
        column: problem.column,
        found: problem.found.join(", "),
      });
    case "bad_row":
      return t("batch.problem.bad_row", { row: problem.row, detail: problem.detail });
    case "extra_cells":
      return t("batch.problem.extra_cells", {
        row: problem.row,
        cells: problem.cells,
        header: problem.headerCells,
      });
    case "split_amount":
      return t("batch.problem.split_amount", { row: problem.row, amount: problem.amount });
  }
}

export function batchFeature(deps: BatchDeps): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  const { batches } = deps.payouts;
  const uploads = new UploadLimiter(UPLOADS_PER_MINUTE, deps.now);

  composer.command("batch", async (ctx) => {
    const staff = ctx.staff;
    if (staff === null || !may(staff, "read")) return;
    const id = commandPayload(ctx.message.text).trim();
    if (id === "") {
      await replyHtml(ctx, ctx.t("batch.help", { rows: batches.maxRows }));
      return;
    }
    const batch = await batches.get(id, staff);
    if (!batch) {
      await replyHtml(ctx, ctx.t("batch.not_found"));
      return;
    }
    const names = await namesOf(deps.stores.profiles, batchPeople(batch));
    await replyView(ctx, batchDetailView(ctx.t, batch, names, deps.now()));
  });

  composer.command("batches", async (ctx) => {
    const staff = ctx.staff;
    if (staff === null || !may(staff, "read")) return;
    await replyHtml(ctx, batchListText(ctx.t, await batches.list(staff)));
  });

  composer.on(message("document"), async (ctx, next) => {
    const staff = ctx.staff;
    const document = ctx.message.document;
    const name = document.file_name ?? "";
    const csv = name.toLowerCase().endsWith(".csv") || CSV_TYPES.has(document.mime_type ?? "");
    if (staff === null || !may(staff, "pay")) return next();
    if (ctx.chat.type !== "private") {
      await replyHtml(ctx, ctx.t("batch.not_private"));
      return;
    }
    if (!csv) {
      await replyHtml(ctx, ctx.t("batch.not_csv"));
      return;
    }
    // A caption `/schedule WHEN` makes it a scheduled batch: WHEN read as /schedule's.
    const plan = planOf(ctx.message.caption, deps.payouts.schedules.settings, deps.now());
    if (plan.outcome === "refused") {
      await refuse(ctx, plan.text(ctx));
      return;
    }
    if ((document.file_size ?? 0) > batches.maxBytes) {
      const problem = { kind: "too_big", maxBytes: batches.maxBytes } as const;
      await refuse(ctx, problemText(ctx, problem));
      return;
    }
    const turn = uploads.take(staff.userId);
    if (!turn.ok) {
      const text =
        turn.reason === "reading"
          ? ctx.t("batch.upload_reading")
          : ctx.t("batch.upload_too_many", { count: turn.perMinute });
      await refuse(ctx, text);
      return;
    }
    let uploaded: UploadResult;
    try {
      const file = await download(ctx, document.file_id, batches.maxBytes);
      if (file.outcome === "failed") {
        await replyHtml(ctx, ctx.t("batch.file_unreadable"));
        return;
      }
      if (file.outcome === "too_big") {
        const problem = { kind: "too_big", maxBytes: batches.maxBytes } as const;
        await refuse(ctx, problemText(ctx, problem));
        return;
      }
      uploaded = await batches.upload({
        ...(plan.outcome === "plan" ? { plan: plan.recurrence } : {}),
        bytes: file.bytes,
        fileName: name || "batch-file.csv",
        initiatorId: staff.userId,
        initiatorRole: staff.role,
        chatId: ctx.chat.id,
        locale: ctx.locale,
      });
    } finally {
      turn.done();
    }
    if (uploaded.outcome === "refused") {
      const { problem } = uploaded;
      const text =
        problem.kind === "busy"
          ? ctx.t("batch.problem.busy", { id: problem.batch.id })
          : problemText(ctx, problem);
      await refuse(ctx, text);
      return;
    }
    const sent = await replyView(ctx, progressView(ctx.t, uploaded.batch, deps.now(), new Map()));
    await deps.payouts.batches.attachProgressMessage(uploaded.batch.id, sent.message_id);
    deps.onBatchWork();
  });

  /** Answers a press with what came of it. */
  const answer = async (
    ctx: BotContext,
    result: BatchStepResult,
    doneKey: "batch.confirmed" | "batch.cancelled" | "batch.stop_sent",
  ) => {
    const { t } = ctx;
    switch (result.outcome) {
      case "not_found":
        return ctx.answerCbQuery(t.plain("batch.not_found"));
      case "forbidden":
        return ctx.answerCbQuery(t.plain("batch.not_yours"), { show_alert: true });
      case "already":
        return ctx.answerCbQuery(
          t.plain("batch.already", { state: t.plain(BATCH_STATE_KEY[result.batch.state]) }),
        );
      case "changed":
        return ctx.answerCbQuery(t.plain("batch.changed"), { show_alert: true });
      case "step_up_required":
        // Only the Mini App, with the PIN, confirms this one (step-up/batch-confirm/:id).
        ctx.log.warn({ batchId: result.batch.id }, "batch confirm without the PIN refused");
        return ctx.answerCbQuery(t.plain("pin.batch_in_app"), { show_alert: true });
      case "expired":
        await editView(ctx, { text: t("batch.expired") });
        return ctx.answerCbQuery(t.plain("batch.expired"));
      case "over_limit":
        return ctx.answerCbQuery(
          t.plain("batch.over_limit", { left: money(t, result.over.leftXaf) }),
          { show_alert: true },
        );
      case "approval_requested": {
        const time = t.time(result.batch.approvalExpiresAtMs ?? result.batch.updatedAtMs);
        await ctx.answerCbQuery(t.plain("batch.approval_requested", { time }));
        return editView(ctx, { text: t("batch.approval_requested", { time }) });
      }
      case "scheduled": {
        await ctx.answerCbQuery(t.plain("schedule.confirmed"));
        const { batch, schedule } = result;
        const total = money(t, schedule.amount);
        const count = schedule.batch?.rowCount ?? batch.payableRows ?? 0;
        return editView(ctx, { text: t("batch.scheduled", { id: schedule.id, count, total }) });
      }
      case "no_runs":
        await ctx.answerCbQuery(t.plain("schedule.no_runs"), { show_alert: true });
        return editView(ctx, { text: t("schedule.no_runs") });
      case "done":
        await ctx.answerCbQuery(t.plain(doneKey));
        if (doneKey !== "batch.stop_sent") await editView(ctx, { text: t(doneKey) });
        return undefined;
    }
  };

  composer.action(BATCH_CALLBACK_PATTERN.confirm, async (ctx) => {
    const result = await batches.confirm(ctx.match[1] ?? "", ctx.staff);
    if (result.outcome === "done") deps.onBatchWork();
    await answer(ctx, result, "batch.confirmed");
  });

  composer.action(BATCH_CALLBACK_PATTERN.include, async (ctx) => {
    const result = await batches.includeRepeats(ctx.match[1] ?? "", ctx.staff);
    if (result.outcome === "none") {
      await ctx.answerCbQuery(ctx.t.plain("batch.include_none"));
      return;
    }
    if (result.outcome !== "done") {
      await answer(ctx, result, "batch.confirmed");
      return;
    }
    deps.onBatchWork();
    const count = result.batch.includedRepeats ?? 0;
    await ctx.answerCbQuery(ctx.t.plain("batch.included", { count }));
    // This preview's buttons go: the new one, with the included rows, comes next.
    await editView(ctx, { text: ctx.t("batch.included", { count }) });
  });

  composer.action(BATCH_CALLBACK_PATTERN.cancel, async (ctx) => {
    await answer(ctx, await batches.cancel(ctx.match[1] ?? "", ctx.staff), "batch.cancelled");
  });

  composer.action(BATCH_CALLBACK_PATTERN.stop, async (ctx) => {
    await answer(ctx, await batches.stop(ctx.match[1] ?? "", ctx.staff), "batch.stop_sent");
  });

  return composer;
}

type Download =
  | { outcome: "ok"; bytes: Uint8Array }
  | { outcome: "too_big" }
  | { outcome: "failed" };

/**
 * The document's bytes, counted as they arrive: over `maxBytes` the download is abandoned
 * and the file refused (Telegram may leave out `file_size`; a file cut at the limit would
 * read as a complete, shorter one).
 */
async function download(ctx: BotContext, fileId: string, maxBytes: number): Promise<Download> {
  try {
    const link = await ctx.telegram.getFileLink(fileId);
    const response = await request(link, { headersTimeout: 15_000, bodyTimeout: 15_000 });
    if (response.statusCode !== 200) {
      await response.body.dump();
      return { outcome: "failed" };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        response.body.destroy();
        return { outcome: "too_big" };
      }
      chunks.push(chunk as Buffer);
    }
    return { outcome: "ok", bytes: new Uint8Array(Buffer.concat(chunks)) };
  } catch (error) {
    ctx.log.warn({ err: error }, "could not download a batch file");
    return { outcome: "failed" };
  }
}
