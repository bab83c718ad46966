/**
 * Batch payouts, the steps people take: a spreadsheet uploaded (read, every row checked on
 * its own, stored for the worker to look up the names), its preview confirmed or
 * cancelled, a running batch stopped, and the batches listed. The worker
 * (batch-worker.ts) does the slow part: the name look-ups and the payments.
 */
import { randomBytes } from "node:crypto";
import { type Actor, staffActor } from "../model/audit.js";
import type { Batch, BatchRow } from "../model/batch.js";
import type { Locale } from "../model/locale.js";
import type { Role } from "../model/roles.js";
import { checkRows } from "./batch-checks.js";
import { type BatchFileLimits, type BatchFileProblem, readBatchFile } from "./batch-file.js";
import type { Limits, OverLimit } from "./limits.js";
import { type Asker, may, maySeeBatch, mayStopBatch, needsApproval } from "./policy.js";
import type { StepContext } from "./types.js";

export interface BatchUpload {
  bytes: Uint8Array;
  fileName: string;
  initiatorId: number;
  initiatorRole: Role;
  chatId: number;
  locale: Locale;
  /** The message that will show the checks' progress. */
  progressMessageId?: number;
}

export type UploadResult =
  | { ok: true; batch: Batch }
  | { ok: false; problem: BatchFileProblem }
  | { ok: false; problem: { kind: "busy"; batch: Batch } };

export type BatchStepResult =
  | { outcome: "not_found" }
  | { outcome: "forbidden"; batch: Batch }
  /** Someone (or time) moved it on first. */
  | { outcome: "already"; batch: Batch }
  | { outcome: "expired"; batch: Batch }
  | { outcome: "over_limit"; batch: Batch; over: OverLimit }
  /** At or over APPROVAL_THRESHOLD_XAF: a batch cannot be approved as one yet (see README). */
  | { outcome: "needs_approval"; batch: Batch; thresholdXaf: number }
  | { outcome: "done"; batch: Batch };

export interface BatchOptions {
  file: BatchFileLimits;
  /** How long a preview can be confirmed. */
  previewTtlMs: number;
  approvalThresholdXaf: number | undefined;
}

/** At most this many batches of one payer are being checked or paid at a time. */
const OPEN_BATCHES_PER_PAYER = 1;

export class Batches {
  readonly #context: StepContext;
  readonly #limits: Limits;
  readonly #options: BatchOptions;

  constructor(context: StepContext, limits: Limits, options: BatchOptions) {
    this.#context = context;
    this.#limits = limits;
    this.#options = options;
  }

  get maxRows(): number {
    return this.#options.file.maxRows;
  }

  get maxBytes(): number {
    return this.#options.file.maxBytes;
  }

  /**
   * Reads the file and checks every row on its own; stores the batch (`checking`) for the
   * worker to look up the registered names. Nothing is stored when the file is refused.
   */
  async upload(input: BatchUpload): Promise<UploadResult> {
    const read = readBatchFile(input.bytes, this.#options.file);
    if (!read.ok) return read;
    const busy = await this.#openBatchOf(input.initiatorId);
    if (busy) return { ok: false, problem: { kind: "busy", batch: busy } };
    const rows = checkRows(read.rows);
    const nowMs = this.#context.now();
    const batch: Batch = {
      id: randomBytes(6).toString("base64url"),
      state: "checking",
      initiatorId: input.initiatorId,
      initiatorRole: input.initiatorRole,
      chatId: input.chatId,
      locale: input.locale,
      fileName: input.fileName,
      rowCount: rows.length,
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
      checkedRows: 0,
      doneRows: 0,
      ...(input.progressMessageId !== undefined
        ? { progressMessageId: input.progressMessageId }
        : {}),
    };
    const actor = staffActor({ userId: input.initiatorId, role: input.initiatorRole });
    await this.#context.stores.batches.create(batch, rows, actor);
    this.#context.log.info({ batchId: batch.id, rows: rows.length }, "batch uploaded");
    return { ok: true, batch };
  }

  /** The payer's batch still being checked or paid, if any. */
  async #openBatchOf(userId: number): Promise<Batch | null> {
    const recent = await this.#context.stores.batches.list({ userId, limit: 5 });
    const open = recent.filter((batch) => ["checking", "running"].includes(batch.state));
    return open.length >= OPEN_BATCHES_PER_PAYER ? (open[0] ?? null) : null;
  }

  /**
   * Confirm batch: its initiator only, while the preview is open. The day's caps are
   * checked against the batch's total (each row still reserves its own amount as it is
   * claimed, so a cap reached meanwhile stops the rows past it).
   */
  async confirm(batchId: string, asker: Asker): Promise<BatchStepResult> {
    const { stores, now } = this.#context;
    const batch = await stores.batches.get(batchId);
    if (!batch) return { outcome: "not_found" };
    if (asker === null || asker.userId !== batch.initiatorId || !may(asker, "pay")) {
      return { outcome: "forbidden", batch };
    }
    if (batch.state !== "ready") return { outcome: "already", batch };
    if (batch.expiresAtMs !== undefined && now() > batch.expiresAtMs) {
      return this.#move(batch, "cancelled", staffActor(asker), "expire");
    }
    const total = batch.totalXaf ?? 0;
    const threshold = this.#options.approvalThresholdXaf;
    if (threshold !== undefined && needsApproval(total, threshold)) {
      return { outcome: "needs_approval", batch, thresholdXaf: threshold };
    }
    const over = await this.#limits.check("disbursement", batch.initiatorId, total);
    if (over) {
      await this.#limits.audit(
        {
          actor: staffActor(asker),
          kind: "disbursement",
          amount: total,
          phone: "",
          step: "confirm",
        },
        over,
      );
      return { outcome: "over_limit", batch, over };
    }
    return this.#move(batch, "running", staffActor(asker), "confirm", { confirmedAtMs: now() });
  }

  /** Cancel on the preview: its initiator only, before it was confirmed. */
  async cancel(batchId: string, asker: Asker): Promise<BatchStepResult> {
    const batch = await this.#context.stores.batches.get(batchId);
    if (!batch) return { outcome: "not_found" };
    if (asker === null || asker.userId !== batch.initiatorId)
      return { outcome: "forbidden", batch };
    if (batch.state !== "ready" && batch.state !== "checking") return { outcome: "already", batch };
    return this.#move(batch, "cancelled", staffActor(asker), "cancel", {}, ["checking", "ready"]);
  }

  /**
   * Stops a running batch: its initiator or an admin. The rows not yet claimed are not
   * sent; the rows already claimed go on to their end (a row's request may be on its way).
   */
  async stop(batchId: string, asker: Asker): Promise<BatchStepResult> {
    const { stores, now } = this.#context;
    const batch = await stores.batches.get(batchId);
    if (!batch) return { outcome: "not_found" };
    if (!mayStopBatch(asker, batch) || asker === null) return { outcome: "forbidden", batch };
    if (batch.state === "checking" || batch.state === "ready") return this.cancel(batchId, asker);
    if (batch.state !== "running") return { outcome: "already", batch };
    const patch = { stoppedBy: asker.userId, sentAtMs: now() };
    return this.#move(batch, "sent", staffActor(asker), "stop", patch, ["running"]);
  }

  async #move(
    batch: Batch,
    to: Batch["state"],
    actor: Actor,
    action: string,
    patch: Partial<Batch> = {},
    from: readonly Batch["state"][] = ["ready"],
  ): Promise<BatchStepResult> {
    const notices = [
      { kind: "batch_progress", batchId: batch.id },
      ...(to === "cancelled" ? [{ kind: "batch_decided", batchId: batch.id } as const] : []),
    ] as const;
    const moved = await this.#context.stores.batches.move(batch.id, from, to, patch, {
      notices,
      audit: { actor, action },
    });
    if (!moved.ok)
      return moved.batch ? { outcome: "already", batch: moved.batch } : { outcome: "not_found" };
    if (action === "expire") return { outcome: "expired", batch: moved.batch };
    return { outcome: "done", batch: moved.batch };
  }

  /** The batch, when `asker` may see it. */
  async get(batchId: string, asker: Asker): Promise<Batch | null> {
    const batch = await this.#context.stores.batches.get(batchId);
    return batch && maySeeBatch(asker, batch) ? batch : null;
  }

  /** `asker`'s latest batches (everyone's for those who see everyone's payouts). */
  async list(asker: NonNullable<Asker>, limit = 10): Promise<Batch[]> {
    const everyone = may(asker, "see_everyone");
    return this.#context.stores.batches.list({
      ...(everyone ? {} : { userId: asker.userId }),
      limit,
    });
  }

  /** Every row of a batch, in order, a page at a time. */
  async *rows(batchId: string, pageSize = 200): AsyncGenerator<BatchRow[]> {
    for (let from = 0; ; from += pageSize) {
      const page = await this.#context.stores.batches.rows(batchId, from, pageSize);
      if (page.length > 0) yield page;
      if (page.length < pageSize) return;
    }
  }
}
