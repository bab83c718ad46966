/**
 * Batch payouts: a CSV document sent in a private chat (with or without /batch first)
 * becomes a batch to check; its preview's Confirm batch / Cancel, Stop while it runs,
 * /batches and /batch ID. The checks and the payments are the batch worker's.
 */

import { Composer } from "telegraf";
import { message } from "telegraf/filters";
import { request } from "undici";
import type { BatchStepResult } from "../../payouts/batch.js";
import type { BatchFileProblem } from "../../payouts/batch-file.js";
import type { Payouts } from "../../payouts/payouts.js";
import { may } from "../../payouts/policy.js";
import { BATCH_STATE_KEY } from "../../reports/batch-keys.js";
import type { Stores } from "../../store/types.js";
import {
  BATCH_CALLBACK_PATTERN,
  batchDetailView,
  batchListText,
  progressView,
} from "../batch-views.js";
import { commandPayload } from "../command-args.js";
import type { BotContext } from "../context.js";
import { editView, replyHtml, replyView } from "../reply.js";
import { namesOf } from "../staff-names.js";
import { money } from "../views.js";

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
      return t("batch.problem.too_many_rows", { rows: problem.rows, max: problem.maxRows });
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
  }
}

export function batchFeature(deps: BatchDeps): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  const { batches } = deps.payouts;

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
    const people = [batch.initiatorId, ...(batch.stoppedBy === undefined ? [] : [batch.stoppedBy])];
    const names = await namesOf(deps.stores.profiles, people);
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
    if ((document.file_size ?? 0) > batches.maxBytes) {
      const problem = { kind: "too_big", maxBytes: batches.maxBytes } as const;
      await refuse(ctx, problemText(ctx, problem));
      return;
    }
    const bytes = await download(ctx, document.file_id, batches.maxBytes);
    if (bytes === null) {
      await replyHtml(ctx, ctx.t("batch.file_unreadable"));
      return;
    }
    const uploaded = await batches.upload({
      bytes,
      fileName: name || "batch-file.csv",
      initiatorId: staff.userId,
      initiatorRole: staff.role,
      chatId: ctx.chat.id,
      locale: ctx.locale,
    });
    if (!uploaded.ok) {
      const { problem } = uploaded;
      const text =
        problem.kind === "busy"
          ? ctx.t("batch.problem.busy", { id: problem.batch.id })
          : problemText(ctx, problem);
      await refuse(ctx, text);
      return;
    }
    const sent = await replyView(ctx, progressView(ctx.t, uploaded.batch, deps.now(), new Map()));
    await deps.stores.batches.update(uploaded.batch.id, { progressMessageId: sent.message_id });
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
      case "expired":
        await editView(ctx, { text: t("batch.expired") });
        return ctx.answerCbQuery(t.plain("batch.expired"));
      case "over_limit":
        return ctx.answerCbQuery(
          t.plain("batch.over_limit", { left: money(t, result.over.leftXaf) }),
          { show_alert: true },
        );
      case "needs_approval":
        return ctx.answerCbQuery(
          t.plain("batch.needs_approval", { threshold: money(t, result.thresholdXaf) }),
          { show_alert: true },
        );
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

  composer.action(BATCH_CALLBACK_PATTERN.cancel, async (ctx) => {
    await answer(ctx, await batches.cancel(ctx.match[1] ?? "", ctx.staff), "batch.cancelled");
  });

  composer.action(BATCH_CALLBACK_PATTERN.stop, async (ctx) => {
    await answer(ctx, await batches.stop(ctx.match[1] ?? "", ctx.staff), "batch.stop_sent");
  });

  return composer;
}

/** The document's bytes, at most `maxBytes`; null when Telegram would not give them. */
async function download(
  ctx: BotContext,
  fileId: string,
  maxBytes: number,
): Promise<Uint8Array | null> {
  try {
    const link = await ctx.telegram.getFileLink(fileId);
    const response = await request(link, { headersTimeout: 15_000, bodyTimeout: 15_000 });
    if (response.statusCode !== 200) {
      await response.body.dump();
      return null;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes + 1) {
        response.body.destroy();
        break;
      }
      chunks.push(chunk as Buffer);
    }
    return new Uint8Array(Buffer.concat(chunks));
  } catch (error) {
    ctx.log.warn({ err: error }, "could not download a batch file");
    return null;
  }
}
