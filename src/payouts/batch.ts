/**
 * Batch payouts, the steps people take: a spreadsheet uploaded (read, every row checked on
 * its own, stored for the worker to look up the names), its preview confirmed or
 * cancelled, a running batch stopped, and the batches listed. The worker
 * (batch-worker.ts) does the slow part: the name look-ups and the payments.
 */
import { randomBytes } from "node:crypto";
import { type Actor, type BatchAuditStep, staffActor } from "../model/audit.js";
import type { Batch, BatchPatch, BatchState } from "../model/batch.js";
import type { Locale } from "../model/locale.js";
import type { Notice } from "../model/notice.js";
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

export class Batches {
  readonly #context: StepContext;
  readonly #limits: Limits;
  readonly #options: BatchOptions;
  readonly #onNoticeQueued: () => void;

  constructor(
    context: StepContext,
    limits: Limits,
    options: BatchOptions,
    onNoticeQueued: () => void,
  ) {
    this.#context = context;
    this.#limits = limits;
    this.#options = options;
    this.#onNoticeQueued = onNoticeQueued;
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
    };
    const actor = staffActor({ userId: input.initiatorId, role: input.initiatorRole });
    await this.#context.stores.batches.create(batch, rows, actor);
    this.#context.log.info({ batchId: batch.id, rows: rows.length }, "batch uploaded");
    return { ok: true, batch };
  }

  /** The payer's batch still being checked or paid, if any (one at a time each). */
  async #openBatchOf(userId: number): Promise<Batch | null> {
    const recent = await this.#context.stores.batches.list({ userId, limit: 5 });
    return recent.find((batch) => batch.state === "checking" || batch.state === "running") ?? null;
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
      return this.#move(batch, ["ready"], "cancelled", {
        actor: staffActor(asker),
        action: "expire",
      });
    }
    const total = batch.totalXaf ?? 0;
    const threshold = this.#options.approvalThresholdXaf;
    if (threshold !== undefined && needsApproval(total, threshold)) {
      return { outcome: "needs_approval", batch, thresholdXaf: threshold };
    }
    const over = await this.#limits.check("disbursement", batch.initiatorId, total);
    if (over) {
      const refusal = { actor: staffActor(asker), kind: "disbursement", amount: total } as const;
      await this.#limits.audit({ ...refusal, batchId, step: "confirm" }, over);
      return { outcome: "over_limit", batch, over };
    }
    const patch = { confirmedAtMs: now() };
    return this.#move(
      batch,
      ["ready"],
      "running",
      { actor: staffActor(asker), action: "confirm" },
      patch,
    );
  }

  /** Cancel on the preview (or while it is being checked): its initiator only. */
  async cancel(batchId: string, asker: Asker): Promise<BatchStepResult> {
    const batch = await this.#context.stores.batches.get(batchId);
    if (!batch) return { outcome: "not_found" };
    if (asker === null || asker.userId !== batch.initiatorId) {
      return { outcome: "forbidden", batch };
    }
    return this.#cancel(batch, asker);
  }

  #cancel(batch: Batch, asker: NonNullable<Asker>): Promise<BatchStepResult> {
    if (batch.state !== "ready" && batch.state !== "checking") {
      return Promise.resolve({ outcome: "already", batch });
    }
    const audit = { actor: staffActor(asker), action: "cancel" as const };
    return this.#move(batch, ["checking", "ready"], "cancelled", audit);
  }

  /**
   * Stops a running batch: its initiator or an admin. The rows not yet claimed are not
   * sent; the rows already claimed go on to their end (a row's request may be on its way).
   */
  async stop(batchId: string, asker: Asker): Promise<BatchStepResult> {
    const { stores, now } = this.#context;
    const batch = await stores.batches.get(batchId);
    if (!batch) return { outcome: "not_found" };
    if (asker === null || !mayStopBatch(asker, batch)) return { outcome: "forbidden", batch };
    // A Stop pressed before the batch ran: its initiator's Cancel; nobody else's.
    if (batch.state !== "running") {
      return asker.userId === batch.initiatorId
        ? this.#cancel(batch, asker)
        : { outcome: "already", batch };
    }
    const patch = { stoppedBy: asker.userId, sentAtMs: now() };
    return this.#move(
      batch,
      ["running"],
      "sent",
      { actor: staffActor(asker), action: "stop" },
      patch,
    );
  }

  /**
   * Stops every batch of `initiatorId` not yet done, `actor` (an admin) as the one who
   * stopped it, `notices` queued with each move: one that runs stops (as Stop does), one
   * not yet confirmed is cancelled. What lost its initiator's standing to pay. Returns how
   * many were stopped.
   */
  async stopAllOf(initiatorId: number, actor: Actor, notices: readonly Notice[]): Promise<number> {
    const { stores, now } = this.#context;
    const batches = await stores.batches.list({ userId: initiatorId, limit: 50 });
    let stopped = 0;
    for (const batch of batches) {
      let result: BatchStepResult | null = null;
      if (batch.state === "running") {
        const patch = { stoppedBy: actor.id, sentAtMs: now() };
        const audit = { actor, action: "stop" as const };
        result = await this.#move(batch, ["running"], "sent", audit, patch, notices);
      } else if (batch.state === "checking" || batch.state === "ready") {
        const audit = { actor, action: "cancel" as const };
        result = await this.#move(batch, ["checking", "ready"], "cancelled", audit, {}, notices);
      }
      if (result?.outcome === "done") stopped += 1;
    }
    return stopped;
  }

  /**
   * Moves the batch from one of `from` (its progress shown again; a preview cancelled or
   * expired loses its buttons), with its audit entry, and wakes the notifier.
   */
  async #move(
    batch: Batch,
    from: readonly BatchState[],
    to: BatchState,
    audit: { actor: Actor; action: BatchAuditStep },
    patch: BatchPatch = {},
    also: readonly Notice[] = [],
  ): Promise<BatchStepResult> {
    const notices: Notice[] = [{ kind: "batch_progress", batchId: batch.id }, ...also];
    if (to === "cancelled") notices.push({ kind: "batch_decided", batchId: batch.id });
    const { stores } = this.#context;
    const moved = await stores.batches.move(batch.id, from, to, patch, { notices, audit });
    if (!moved.ok) {
      return moved.batch ? { outcome: "already", batch: moved.batch } : { outcome: "not_found" };
    }
    this.#onNoticeQueued();
    return { outcome: audit.action === "expire" ? "expired" : "done", batch: moved.batch };
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
}
