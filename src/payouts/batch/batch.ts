/**
 * Batch payouts, the steps people take: a spreadsheet uploaded (read, every row checked on
 * its own, stored for the worker to look up the names), its preview confirmed or
 * cancelled (at or over the approval threshold, sent for approval: batch-approval.ts), a
 * running batch stopped, and the batches listed. The worker
 * (worker.ts) does the slow part: the name look-ups and the payments.
 */
import { createHash } from "node:crypto";
import { type ApprovalBand, bandOf, ruleOfBand } from "../../model/approval-rules.js";
import {
  type Actor,
  type AuditDetails,
  type BatchAuditStep,
  staffActor,
} from "../../model/audit.js";
import type { Batch, BatchPatch, BatchState } from "../../model/batch.js";
import type { Locale } from "../../model/locale.js";
import type { Notice } from "../../model/notice.js";
import type { Role } from "../../model/roles.js";
import type { Recurrence, Schedule } from "../../model/schedule.js";
import { newBatchId } from "../ids.js";
import type { Limits } from "../limits.js";
import { approvalNeedsPin, type PinProof } from "../pin.js";
import { type Asker, may, maySeeBatch, mayStopBatch, needsApproval } from "../policy.js";
import type { OverLimit, StepContext } from "../types.js";
import { aliasKeysOf, checkRows, type RowRecipient } from "./checks.js";
import { type BatchFileLimits, type BatchFileProblem, readBatchFile } from "./file.js";
import { allRows } from "./rows.js";

export interface BatchUpload {
  /** A scheduled batch's plan (the caption's `/schedule WHEN`): Confirm schedules it. */
  plan?: Recurrence;
  bytes: Uint8Array;
  fileName: string;
  initiatorId: number;
  initiatorRole: Role;
  chatId: number;
  locale: Locale;
}

export type UploadResult =
  | { outcome: "uploaded"; batch: Batch }
  | { outcome: "refused"; problem: BatchFileProblem | { kind: "busy"; batch: Batch } };

export type BatchStepResult =
  | { outcome: "not_found" }
  | { outcome: "forbidden"; batch: Batch }
  /** Someone (or time) moved it on first. */
  | { outcome: "already"; batch: Batch }
  /** The preview changed after it was read (an Include, a new total): the new one decides. */
  | { outcome: "changed"; batch: Batch }
  | { outcome: "expired"; batch: Batch }
  | { outcome: "over_limit"; batch: Batch; over: OverLimit }
  /** At or over APPROVAL_THRESHOLD_XAF: it now waits for an approver. */
  | { outcome: "approval_requested"; batch: Batch }
  /** At or over STEP_UP_THRESHOLD_XAF without the initiator's PIN: nothing moved. */
  | { outcome: "step_up_required"; batch: Batch }
  /** A scheduled batch confirmed: its schedule is active (see schedule/batch-schedules.ts). */
  | { outcome: "scheduled"; batch: Batch; schedule: Schedule }
  /** A scheduled batch that may not be scheduled: at or over STEP_UP_THRESHOLD_XAF. */
  /** A scheduled batch with no run left (its date passed since the preview): not scheduled. */
  | { outcome: "no_runs"; batch: Batch }
  | { outcome: "done"; batch: Batch };

/** How a scheduled batch's Confirm (or approval) makes its schedule. */
export interface BatchScheduling {
  /** The plan's next run times after now (none: a one-off whose time has passed). */
  nextRuns(batch: Batch, count?: number): ReadonlyArray<{ atMs: number }>;
  activate(
    batch: Batch,
    actor: Actor,
    approvedBy?: number,
  ): Promise<{ outcome: "done"; schedule: Schedule } | { outcome: "no_runs" | "nothing_to_pay" }>;
}

export interface BatchOptions {
  file: BatchFileLimits;
  /** How long a preview can be confirmed. */
  previewTtlMs: number;
  approvalThresholdXaf: number | undefined;
  /** APPROVAL_RULES: a batch follows the band of its total (kept on it when sent). */
  approvalBands?: readonly ApprovalBand[] | undefined;
  /** APPROVAL_TTL_HOURS: how long a batch waits for an approver. */
  approvalTtlMs: number;
  /** STEP_UP_THRESHOLD_XAF: a batch of this total or more is confirmed with the PIN. */
  stepUpThresholdXaf?: number | undefined;
  /** Scheduled batches (a file captioned `/schedule WHEN`); without it none is taken. */
  scheduling?: BatchScheduling;
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

  /** What a batch sent for approval records: when, until when, and its band's rule. */
  #approvalPatch(totalXaf: number): BatchPatch {
    const { now } = this.#context;
    const band = bandOf(this.#options.approvalBands ?? [], totalXaf);
    return {
      approvalRequestedAtMs: now(),
      approvalExpiresAtMs: now() + this.#options.approvalTtlMs,
      ...ruleOfBand(band),
    };
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
    const read = await readBatchFile(input.bytes, this.#options.file);
    if (!read.ok) return { outcome: "refused", problem: read.problem };
    const busy = await this.#openBatchOf(input.initiatorId);
    if (busy) return { outcome: "refused", problem: { kind: "busy", batch: busy } };
    const rows = checkRows(read.rows, await this.#savedRecipients(aliasKeysOf(read.rows)));
    const nowMs = this.#context.now();
    const batch: Batch = {
      id: newBatchId(),
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
      fileSha256: createHash("sha256").update(input.bytes).digest("hex"),
      ...(input.plan ? { plan: input.plan } : {}),
    };
    const actor = staffActor({ userId: input.initiatorId, role: input.initiatorRole });
    await this.#context.stores.batches.create(batch, rows, actor);
    this.#context.log.info({ batchId: batch.id, rows: rows.length }, "batch uploaded");
    return { outcome: "uploaded", batch };
  }

  /**
   * Attaches the chat message that shows a batch's progress (sent once its upload was
   * stored), for the worker to edit round by round.
   */
  async attachProgressMessage(batchId: string, messageId: number): Promise<void> {
    await this.#context.stores.batches.update(batchId, { progressMessageId: messageId });
  }

  /** The saved recipients under these alias keys (those saved; the others are row problems). */
  async #savedRecipients(keys: readonly string[]): Promise<Map<string, RowRecipient>> {
    const found = new Map<string, RowRecipient>();
    const entries = await Promise.all(keys.map((key) => this.#context.stores.recipients.get(key)));
    keys.forEach((key, index) => {
      const entry = entries[index];
      if (entry) found.set(key, { phone: entry.phone, savedName: entry.registeredName });
    });
    return found;
  }

  /** The payer's batch still being checked or paid, if any (one at a time each). */
  async #openBatchOf(userId: number): Promise<Batch | null> {
    const recent = await this.#context.stores.batches.list({ userId, limit: 5 });
    return recent.find((batch) => batch.state === "checking" || batch.state === "running") ?? null;
  }

  /**
   * The batch whose preview `asker` pressed, when it is theirs and still open; else what
   * came of the press (a preview past its time is cancelled as expired).
   */
  async #openPreview(
    batchId: string,
    asker: Asker,
  ): Promise<{ batch: Batch; presser: NonNullable<Asker> } | BatchStepResult> {
    const batch = await this.#context.stores.batches.get(batchId);
    if (!batch) return { outcome: "not_found" };
    if (asker === null || asker.userId !== batch.initiatorId || !may(asker, "pay")) {
      return { outcome: "forbidden", batch };
    }
    if (batch.state !== "ready") return { outcome: "already", batch };
    if (batch.expiresAtMs !== undefined && this.#context.now() > batch.expiresAtMs) {
      return this.#move(batch, ["ready"], "cancelled", {
        actor: staffActor(asker),
        action: "expire",
      });
    }
    return { batch, presser: asker };
  }

  /**
   * Confirm batch: its initiator only, while the preview is open. The day's caps are
   * checked against the batch's total (each row still reserves its own amount as it is
   * claimed, so a cap reached meanwhile stops the rows past it).
   */
  async confirm(batchId: string, asker: Asker, pin?: PinProof): Promise<BatchStepResult> {
    const { now } = this.#context;
    const open = await this.#openPreview(batchId, asker);
    if ("outcome" in open) {
      // Confirmed before, its schedule perhaps not made (a crash in between): made now.
      if (open.outcome === "already" && open.batch.state === "scheduled" && asker !== null) {
        return this.#schedule(open.batch, staffActor(asker));
      }
      return open;
    }
    const { batch, presser } = open;
    const total = batch.totalXaf ?? 0;
    // The total as read is the one moved: an Include in between changes the version. A
    // scheduled batch's PIN is asked once, at its Confirm, for every run.
    const pinFrom = this.#options.stepUpThresholdXaf;
    if (approvalNeedsPin(pinFrom, { amount: total }, presser, pin, now())) {
      return { outcome: "step_up_required", batch };
    }
    if (batch.plan) return this.#confirmPlan(batch, presser);
    const over = await this.#limits.check("disbursement", batch.initiatorId, total);
    if (over) {
      const refusal = { actor: staffActor(presser), kind: "disbursement", amount: total } as const;
      await this.#limits.audit({ ...refusal, batchId, step: "confirm" }, over);
      return { outcome: "over_limit", batch, over };
    }
    if (needsApproval(total, this.#options.approvalThresholdXaf)) {
      // As read: an Include and its new preview in between move nothing here.
      const moved = await this.#move(
        batch,
        ["ready"],
        "awaiting_approval",
        { actor: staffActor(presser), action: "request_approval" },
        this.#approvalPatch(total),
        batch.version ?? 0,
        // The preview's buttons are taken away by the press that answers this.
        [{ kind: "batch_approval_requested", batchId }],
      );
      return moved.outcome === "done"
        ? { outcome: "approval_requested", batch: moved.batch }
        : moved;
    }
    const patch = { confirmedAtMs: now() };
    // Only the batch as read (and checked against the caps) runs: an Include (and its new
    // preview) in between moved it on, and this Confirm then moves nothing.
    return this.#move(
      batch,
      ["ready"],
      "running",
      { actor: staffActor(presser), action: "confirm" },
      patch,
      batch.version ?? 0,
    );
  }

  /**
   * Confirm of a scheduled batch (its PIN, at or over STEP_UP_THRESHOLD_XAF, checked by
   * `confirm` before it): at or over the approval threshold, sent for approval as one (as any
   * batch); else scheduled now. Today's caps are not checked here: each run's rows are,
   * in their claims, on the run's day.
   */
  async #confirmPlan(batch: Batch, presser: NonNullable<Asker>): Promise<BatchStepResult> {
    const { now } = this.#context;
    const total = batch.totalXaf ?? 0;
    // A one-off whose time passed since the preview: nothing to schedule, nothing moves.
    if (this.#options.scheduling?.nextRuns(batch, 1).length === 0) {
      return { outcome: "no_runs", batch };
    }
    const actor = staffActor(presser);
    if (needsApproval(total, this.#options.approvalThresholdXaf)) {
      const moved = await this.#move(
        batch,
        ["ready"],
        "awaiting_approval",
        { actor, action: "request_approval" },
        this.#approvalPatch(total),
        batch.version ?? 0,
        [{ kind: "batch_approval_requested", batchId: batch.id }],
      );
      return moved.outcome === "done"
        ? { outcome: "approval_requested", batch: moved.batch }
        : moved;
    }
    const audit = { actor, action: "schedule" as const, details: { plan: batch.plan?.kind ?? "" } };
    const moved = await this.#move(
      batch,
      ["ready"],
      "scheduled",
      audit,
      { confirmedAtMs: now() },
      batch.version ?? 0,
    );
    if (moved.outcome !== "done") return moved;
    return this.#schedule(moved.batch, actor);
  }

  /** The schedule of a scheduled batch, made (or found) once the batch moved to scheduled. */
  async #schedule(batch: Batch, actor: Actor): Promise<BatchStepResult> {
    const made = await this.#options.scheduling?.activate(batch, actor, batch.approvedBy);
    if (made?.outcome === "done") return { outcome: "scheduled", batch, schedule: made.schedule };
    return { outcome: "no_runs", batch };
  }

  /**
   * "Include N possible duplicates" on the preview: its initiator only, while it is open.
   * The batch goes back to `checking` (so no Confirm can pass meanwhile, and the old preview
   * loses its buttons); the worker clears the marked rows' problem and shows a new preview,
   * with the new total, which the payer then confirms as usual.
   */
  async includeRepeats(
    batchId: string,
    asker: Asker,
  ): Promise<BatchStepResult | { outcome: "none"; batch: Batch }> {
    const { stores } = this.#context;
    const open = await this.#openPreview(batchId, asker);
    if ("outcome" in open) return open;
    const { batch, presser } = open;
    const rows = await allRows(stores, batchId);
    const count = rows.filter((row) => row.problem === "recent_duplicate").length;
    if (count === 0) return { outcome: "none", batch };
    const audit = {
      actor: staffActor(presser),
      action: "include_repeats" as const,
      details: { rows: count },
    };
    return this.#move(batch, ["ready"], "checking", audit, {
      includedRepeats: count,
      checkedRows: 0,
    });
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
        result = await this.#move(batch, ["running"], "sent", audit, patch, undefined, notices);
      } else if (batch.state === "checking" || batch.state === "ready") {
        const audit = { actor, action: "cancel" as const };
        result = await this.#move(
          batch,
          ["checking", "ready"],
          "cancelled",
          audit,
          {},
          undefined,
          notices,
        );
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
    audit: { actor: Actor; action: BatchAuditStep; details?: AuditDetails },
    patch: BatchPatch = {},
    expectVersion?: number,
    more: readonly Notice[] = [],
  ): Promise<BatchStepResult> {
    const notices: Notice[] = [{ kind: "batch_progress", batchId: batch.id }, ...more];
    if (to === "cancelled") notices.push({ kind: "batch_decided", batchId: batch.id });
    const { stores } = this.#context;
    const options = { notices, audit, ...(expectVersion === undefined ? {} : { expectVersion }) };
    const moved = await stores.batches.move(batch.id, from, to, patch, options);
    if (!moved.ok) {
      if (!moved.batch) return { outcome: "not_found" };
      const changed = from.includes(moved.batch.state) && expectVersion !== undefined;
      return { outcome: changed ? "changed" : "already", batch: moved.batch };
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
