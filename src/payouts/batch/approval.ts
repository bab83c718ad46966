/**
 * A batch at or over APPROVAL_THRESHOLD_XAF, approved or rejected as one by an approver or
 * admin who is not its sender (its Confirm sent it for approval: batch.ts). The first
 * decision wins (a compare-and-set on its state); Approve checks the day's caps again;
 * nobody deciding within APPROVAL_TTL_HOURS cancels it (the worker's sweep, or a late
 * press). Approved, it runs through the worker exactly as a confirmed batch.
 */

import { addSignature, type Signatures } from "../../model/approval-rules.js";
import { type Actor, type BatchAuditStep, SYSTEM_ACTOR, staffActor } from "../../model/audit.js";
import type { Batch, BatchPatch, BatchState } from "../../model/batch.js";
import type { Notice } from "../../model/notice.js";
import type { BatchMoveOptions, BatchMoveResult } from "../../store/batch-store.js";
import type { Limits } from "../limits.js";
import { approvalNeedsPin, type PinProof } from "../pin.js";
import { type Asker, DECIDING_ROLES, type DecideVerdict, may, mayDecide } from "../policy.js";
import type { OverLimit, StepContext } from "../types.js";
import type { BatchScheduling } from "./batch.js";

/** What came of an approver's Approve or Reject on a batch. */
export type BatchDecisionResult =
  | { outcome: "not_found" }
  | {
      outcome: "forbidden";
      batch: Batch;
      /** `too_new`: the decider's role came after the batch; `initiator_gone`: its sender may no longer pay. */
      why: Exclude<DecideVerdict, "allowed"> | "too_new" | "initiator_gone";
    }
  /** Someone else (or time) decided first. */
  | { outcome: "already"; batch: Batch }
  /** At or over STEP_UP_THRESHOLD_XAF without the approver's PIN: nothing was decided. */
  | { outcome: "step_up_required"; batch: Batch }
  | { outcome: "expired"; batch: Batch }
  /** Approve refused: the total no longer fits its initiator's caps today. */
  | { outcome: "over_limit"; batch: Batch; over: OverLimit }
  /** A scheduled batch at or over STEP_UP_THRESHOLD_XAF: never scheduled; nothing decided. */
  | { outcome: "done"; batch: Batch }
  /** APPROVAL_RULES: a signature short of the rule recorded; it waits on. */
  | { outcome: "signed"; batch: Batch; given: number; needed: number }
  /** This approver signed it already; nothing changed. */
  | { outcome: "already_signed"; batch: Batch };

export class BatchApproval {
  readonly #context: StepContext;
  readonly #limits: Limits;
  readonly #onNoticeQueued: () => void;

  constructor(
    context: StepContext,
    limits: Limits,
    onNoticeQueued: () => void,
    /** STEP_UP_THRESHOLD_XAF: a batch of this total or more is approved with the PIN. */
    readonly stepUpThresholdXaf?: number,
    /** Scheduled batches: an approved one becomes a schedule rather than being paid. */
    readonly scheduling?: BatchScheduling,
  ) {
    this.#context = context;
    this.#limits = limits;
    this.#onNoticeQueued = onNoticeQueued;
  }

  /**
   * Approve a batch awaiting approval: an approver or admin who is not its initiator, before
   * APPROVAL_TTL_HOURS. The day's caps are checked again against the total (a refusal is
   * audited and leaves it waiting); `awaiting_approval → running` is a compare-and-set, so
   * the first decision wins, and the worker pays it as a confirmed batch.
   */
  async approve(
    batchId: string,
    approver: Asker,
    pin?: PinProof,
    tries = 2,
  ): Promise<BatchDecisionResult> {
    const pending = await this.#pending(batchId, approver, "approve");
    if ("outcome" in pending) return pending;
    const { batch, decider } = pending;
    // Every signature at or over the PIN threshold takes the signer's PIN, not only the
    // last: one short of the rule is a decision too (a chat press, forged or not, signs
    // nothing).
    const total = batch.totalXaf ?? 0;
    const pinFrom = this.stepUpThresholdXaf;
    if (approvalNeedsPin(pinFrom, { amount: total }, decider, pin, this.#context.now())) {
      return { outcome: "step_up_required", batch };
    }
    const signed = await this.#sign(batch, decider);
    // Another signature landed between the read and the write: counted again from it.
    if (signed === "moved") {
      const now = await this.#context.stores.batches.get(batchId);
      if (tries > 1 && now?.state === "awaiting_approval") {
        return this.approve(batchId, approver, pin, tries - 1);
      }
      return now ? { outcome: "already", batch: now } : { outcome: "not_found" };
    }
    if (signed.outcome !== "last") return signed;
    const signers = this.#signers(batch, signed.signatures);
    // The last signature's move found the batch, or a signer's standing, changed since it
    // was read: counted again from what is stored now.
    const again = (result: BatchDecisionResult) =>
      result.outcome === "already" && result.batch.state === "awaiting_approval" && tries > 1
        ? this.approve(batchId, approver, pin, tries - 1)
        : result;
    if (batch.plan) return again(await this.#approvePlan(batch, decider, signers));
    const over = await this.#limits.check("disbursement", batch.initiatorId, total);
    if (over) {
      const refusal = { actor: staffActor(decider), kind: "disbursement", amount: total } as const;
      await this.#limits.audit({ ...refusal, batchId, step: "approve" }, over);
      return { outcome: "over_limit", batch, over };
    }
    const { now } = this.#context;
    const decided = await this.#decide(
      batch,
      "running",
      { actor: staffActor(decider), action: "approve" },
      {
        approvedBy: decider.userId,
        decidedAtMs: now(),
        confirmedAtMs: now(),
        signatures: signed.signatures,
      },
      batch.version ?? 0,
      signers,
    );
    return again(decided);
  }

  /** Who must still stand, in the same step as the move, for `signatures` to count. */
  #signers(batch: Batch, signatures: Signatures) {
    const rule = batch.approvalRule ?? { signatures: 1, roles: DECIDING_ROLES };
    const userIds = signatures.map((signature) => signature.userId);
    return { userIds, roles: rule.roles, askedAtMs: batch.createdAtMs };
  }

  /**
   * A signature on `batch` (APPROVAL_RULES; one without a rule): the earlier ones still
   * count while their signer stands in the band's roles (and did when the batch was made);
   * the same person twice is refused; short of the rule it is recorded (audited as
   * `batch_sign`) under the batch's version, so two signatures at once never lose one; the
   * last is for the caller to move with (same version). `moved`: the version changed.
   */
  async #sign(
    batch: Batch,
    decider: NonNullable<Asker>,
  ): Promise<
    | { outcome: "last"; signatures: Signatures }
    | Extract<BatchDecisionResult, { outcome: "signed" | "already_signed" }>
    | "moved"
  > {
    const { stores, now } = this.#context;
    const rule = batch.approvalRule ?? { signatures: 1, roles: DECIDING_ROLES };
    const staff = new Map((await stores.staff.list()).map((m) => [m.userId, m]));
    const signer = { userId: decider.userId, atMs: now() };
    const added = addSignature(batch.signatures, signer, rule, batch.createdAtMs, (id) =>
      staff.get(id),
    );
    if (added.outcome === "already_signed") return { outcome: "already_signed", batch };
    const { signatures } = added;
    if (added.outcome === "last") return { outcome: "last", signatures };
    const moved = await stores.batches.move(
      batch.id,
      ["awaiting_approval"],
      "awaiting_approval",
      { signatures },
      {
        notices: [{ kind: "batch_approval_signed", batchId: batch.id }],
        audit: { actor: staffActor(decider), action: "sign" },
        expectVersion: batch.version ?? 0,
        signers: this.#signers(batch, signatures),
      },
    );
    if (!moved.ok) return "moved";
    this.#context.log.info({ batchId: batch.id, given: signatures.length }, "batch signed");
    this.#onNoticeQueued();
    const given = signatures.length;
    return { outcome: "signed", batch: moved.batch, given, needed: rule.signatures };
  }

  /**
   * Approve of a scheduled batch: the same deciders and first-decision-wins as any batch's,
   * once for every run; it then becomes a schedule (today's caps are each run's business).
   */
  async #approvePlan(
    batch: Batch,
    decider: NonNullable<Asker>,
    signers: NonNullable<BatchMoveOptions["signers"]>,
  ): Promise<BatchDecisionResult> {
    const { now } = this.#context;
    const actor = staffActor(decider);
    const decided = await this.#decide(
      batch,
      "scheduled",
      { actor, action: "approve" },
      { approvedBy: decider.userId, decidedAtMs: now(), confirmedAtMs: now() },
      undefined,
      signers,
    );
    if (decided.outcome === "done")
      await this.scheduling?.activate(decided.batch, actor, decider.userId);
    return decided;
  }

  /** Reject a batch awaiting approval (same deciders as Approve): nothing of it is paid. */
  async reject(batchId: string, approver: Asker): Promise<BatchDecisionResult> {
    const pending = await this.#pending(batchId, approver, "reject");
    if ("outcome" in pending) return pending;
    const { batch, decider } = pending;
    return this.#decide(
      batch,
      "rejected",
      { actor: staffActor(decider), action: "reject" },
      { rejectedBy: decider.userId, decidedAtMs: this.#context.now() },
    );
  }

  /**
   * The batch, when `approver` may decide on it now; else why not (expiring it if late). The
   * same standing rules as a payout's approval: a decider whose approving role was granted
   * after the batch was made cannot decide it (an admin cannot add a second account and
   * approve their own batch with it), and a batch whose sender may no longer pay can be
   * rejected but not approved (its rows' claims refuse it too).
   */
  async #pending(
    batchId: string,
    approver: Asker,
    decision: "approve" | "reject",
  ): Promise<{ batch: Batch; decider: NonNullable<Asker> } | BatchDecisionResult> {
    const { stores } = this.#context;
    const [batch, staff] = await Promise.all([stores.batches.get(batchId), stores.staff.list()]);
    if (!batch) return { outcome: "not_found" };
    const verdict = mayDecide(approver, batch);
    if (verdict !== "allowed" || approver === null) {
      return { outcome: "forbidden", batch, why: verdict === "allowed" ? "not_allowed" : verdict };
    }
    if (batch.state !== "awaiting_approval") return { outcome: "already", batch };
    const grantedAtMs = staff.find((member) => member.userId === approver.userId)?.grantedAtMs;
    if ((grantedAtMs ?? 0) > batch.createdAtMs)
      return { outcome: "forbidden", batch, why: "too_new" };
    const sender = staff.find((member) => member.userId === batch.initiatorId);
    if (decision === "approve" && !(sender && may(sender, "pay"))) {
      return { outcome: "forbidden", batch, why: "initiator_gone" };
    }
    if (!isLate(batch, this.#context.now())) return { batch, decider: approver };
    const expired = await expireApproval(this.#context.stores, batch);
    this.#onNoticeQueued();
    return expired.ok
      ? { outcome: "expired", batch: expired.batch }
      : { outcome: "already", batch: expired.batch ?? batch };
  }

  async #decide(
    batch: Batch,
    to: BatchState,
    audit: { actor: Actor; action: BatchAuditStep },
    patch: BatchPatch,
    expectVersion?: number,
    signers?: BatchMoveOptions["signers"],
  ): Promise<BatchDecisionResult> {
    const notices: Notice[] = [
      { kind: "batch_progress", batchId: batch.id },
      { kind: "batch_approval_decided", batchId: batch.id },
    ];
    const moved = await this.#context.stores.batches.move(
      batch.id,
      ["awaiting_approval"],
      to,
      patch,
      {
        notices,
        audit,
        ...(expectVersion === undefined ? {} : { expectVersion }),
        ...(signers === undefined ? {} : { signers }),
      },
    );
    if (!moved.ok) {
      return moved.batch ? { outcome: "already", batch: moved.batch } : { outcome: "not_found" };
    }
    this.#context.log.info({ batchId: batch.id, to }, "batch approval decided");
    this.#onNoticeQueued();
    return { outcome: "done", batch: moved.batch };
  }
}

/** Nobody decided on it within APPROVAL_TTL_HOURS. */
export function isLate(batch: Batch, nowMs: number): boolean {
  return (
    batch.state === "awaiting_approval" &&
    batch.approvalExpiresAtMs !== undefined &&
    nowMs >= batch.approvalExpiresAtMs
  );
}

/**
 * Expires a batch nobody approved in time (the bot's own move, made by the worker's sweep
 * or found by a late press): cancelled, its cards and its initiator told.
 */
export function expireApproval(
  stores: StepContext["stores"],
  batch: Batch,
): Promise<BatchMoveResult> {
  const notices: Notice[] = [
    { kind: "batch_progress", batchId: batch.id },
    { kind: "batch_approval_decided", batchId: batch.id },
  ];
  const audit = {
    actor: SYSTEM_ACTOR,
    action: "approval_expire" as const,
    details: { reason: "nobody approved it within APPROVAL_TTL_HOURS" },
  };
  return stores.batches.move(batch.id, ["awaiting_approval"], "cancelled", {}, { notices, audit });
}

/** The worker's sweep: a batch waiting past APPROVAL_TTL_HOURS is expired; its state after. */
export async function expireIfLate(
  context: StepContext,
  batch: Batch,
  onNoticeQueued?: () => void,
): Promise<BatchState | null> {
  if (!isLate(batch, context.now())) return batch.state;
  const moved = await expireApproval(context.stores, batch);
  if (moved.ok) context.log.info({ batchId: batch.id }, "batch approval expired");
  onNoticeQueued?.();
  return moved.batch?.state ?? null;
}
