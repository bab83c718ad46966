/**
 * Four-eyes approval: a payout or collection at or over APPROVAL_THRESHOLD_XAF waits, after
 * its initiator's Confirm, for an approver or admin who is not its initiator. The first
 * decision wins (a compare-and-set); an approval claims the payout for its submission, as
 * a Confirm does, and the caller sends it at once through `Submission.submit`. Nobody
 * deciding within APPROVAL_TTL_HOURS expires it. Who is told what goes through the outbox.
 */
import { type ApprovalBand, bandOf } from "../model/approval-rules.js";
import { SYSTEM_ACTOR, staffActor } from "../model/audit.js";
import { type ApprovalNoticeKind, noticeKey } from "../model/notice.js";
import type { Payout } from "../model/payout.js";
import type { Role } from "../model/roles.js";
import { cleanRemark } from "../model/text.js";
import { randomHex } from "../random.js";
import type {
  ApprovalCard,
  Reservation,
  TransitionOptions,
  TransitionResult,
} from "../store/types.js";
import { type Approver, decideRefusal, standingExpected } from "./approval-checks.js";
import type { Duplicates } from "./duplicates.js";
import type { Limits } from "./limits.js";
import { approvalNeedsPin, type PinProof } from "./pin.js";
import { DECIDING_ROLES, decidersOf, mayDecide } from "./policy.js";
import { retryPayoutWrite } from "./store-retry.js";
import type {
  ApproveResult,
  DecideRefusal,
  PayoutRules,
  ReasonResult,
  RejectResult,
  StepContext,
  WithdrawResult,
} from "./types.js";
import { lostRace } from "./types.js";

export type { Approver };

function notice(kind: ApprovalNoticeKind, payoutId: string) {
  return [{ kind, payoutId }] as const;
}

/** What a payout waiting for approval needs: its band's rule, else one approver or admin. */
export function ruleOf(payout: Pick<Payout, "approvalRule">): {
  signatures: number;
  roles: readonly Role[];
} {
  return payout.approvalRule ?? { signatures: 1, roles: DECIDING_ROLES };
}

export class Approval {
  readonly #context: StepContext;
  readonly #rules: PayoutRules;
  readonly #limits: Limits;
  readonly #duplicates: Duplicates;
  readonly #onNoticeQueued: () => void;

  constructor(
    context: StepContext,
    rules: PayoutRules,
    checks: { limits: Limits; duplicates: Duplicates },
    onNoticeQueued: () => void,
  ) {
    this.#context = context;
    this.#rules = rules;
    this.#limits = checks.limits;
    this.#duplicates = checks.duplicates;
    this.#onNoticeQueued = onNoticeQueued;
  }

  /**
   * Remembers a card shown to an approver (the chat and message), so that a decision made
   * anywhere turns every card of the payout into what was decided.
   */
  async attachCard(payoutId: string, card: ApprovalCard): Promise<void> {
    await this.#context.stores.cards.add(payoutId, card);
  }

  /**
   * The latest payout `payout` repeats (DUPLICATE_WINDOW_MINUTES, counted back from now),
   * the same question the payer's prompt asked: what an approver's card shows.
   */
  duplicateOf(payout: Payout): Promise<Payout | undefined> {
    return this.#duplicates.latest(payout);
  }

  /** The approval rule's band `amountXaf` falls in (APPROVAL_RULES), or undefined. */
  bandOf(amountXaf: number): ApprovalBand | undefined {
    return bandOf(this.#rules.approvalBands ?? [], amountXaf);
  }

  /** APPROVAL_THRESHOLD_XAF: from this amount a second person approves (undefined: never). */
  get thresholdXaf(): number | undefined {
    return this.#rules.approvalThresholdXaf;
  }

  /**
   * The Confirm of a payout that needs a second person: `awaiting_confirmation →
   * awaiting_approval`, a payout's amount reserved against the day's limits (`reserve`),
   * the approvers' cards queued, all in one step. Asked again under the same `claimId` after a
   * timeout, it finds its own move (see PayoutStore.transition).
   */
  async request(
    payout: Payout,
    options: Pick<TransitionOptions, "actor" | "expect"> & {
      claimId: string;
      reserve: Reservation | undefined;
    },
  ): Promise<TransitionResult> {
    const { stores, log, now } = this.#context;
    const band = bandOf(this.#rules.approvalBands ?? [], payout.amount);
    // The band is kept on the payout: a change of APPROVAL_RULES later does not change what
    // an open request needs.
    const patch = {
      approvalExpiresAtMs: now() + this.#rules.approvalTtlMs,
      ...(band ? { approvalRule: { signatures: band.signatures, roles: [...band.roles] } } : {}),
    };
    const moveOptions = { ...options, notices: notice("approval_requested", payout.id) };
    const result = await retryPayoutWrite(log, payout.id, "request approval", () =>
      stores.payouts.transition(payout.id, "request_approval", patch, moveOptions),
    );
    if (result.ok && result.applied) {
      log.info({ payoutId: payout.id, amount: payout.amount }, "payout waits for approval");
      this.#onNoticeQueued();
    }
    return result;
  }

  /**
   * The staff who may decide on `payout` now: approvers and admins (or its band's roles),
   * its initiator not.
   */
  async approversOf(payout: Pick<Payout, "initiatorId" | "approvalRule">): Promise<number[]> {
    const [deciders = []] = await this.approversOfEach([payout]);
    return deciders;
  }

  /** `approversOf` for each of `payouts`, in order, from one read of the staff. */
  async approversOfEach(
    payouts: ReadonlyArray<Pick<Payout, "initiatorId" | "approvalRule">>,
  ): Promise<number[][]> {
    const staff = await this.#context.stores.staff.list();
    return payouts.map((payout) => decidersOf(staff, payout).map((member) => member.userId));
  }

  /**
   * Approve: `awaiting_approval → submitting` under a fresh claim, the approver as actor.
   * The amount counts against the day of the approval: a payout asked for on an earlier day
   * has its hold moved to today in the same atomic step, checked against today's caps
   * (over one: refused and audited, it keeps waiting). The result is a claimed payout: the
   * caller sends it at once with `Submission.submit`.
   */
  async approve(
    payoutId: string,
    approver: Approver,
    options: { duplicateSeenAtMs?: number; pin?: PinProof } = {},
  ): Promise<ApproveResult> {
    const checked = await this.#pending(payoutId, approver);
    if ("outcome" in checked) return checked;
    const { stepUpThresholdXaf: pinFrom } = this.#rules;
    if (approvalNeedsPin(pinFrom, checked, approver, options.pin, this.#context.now())) {
      return { outcome: "step_up_required", payout: checked };
    }
    // The duplicate rule asked again at the decision: a repeat the approver was not shown
    // (none on their card, or one newer than the card's) stops the press, to be shown.
    const duplicate = await this.#duplicates.latest(checked);
    if (duplicate && !this.#duplicates.seen(duplicate, options.duplicateSeenAtMs)) {
      return { outcome: "duplicate", payout: checked, duplicate };
    }
    const { stores, log, now } = this.#context;
    const claimId = randomHex(8);
    const actor = staffActor(approver);
    const patch = { approvedBy: approver.userId, decidedAtMs: now(), submittedAtMs: now() };
    const slot = this.#context.gateway.sharedSlot?.();
    const rule = ruleOf(checked);
    const moveOptions = {
      claimId,
      actor,
      expect: standingExpected(approver, true, rule.roles),
      notices: notice("approval_decided", payoutId),
      // Every approval counts signatures (one, without a rule): the last one needed makes
      // the move, in the same step as the rest of the claim's checks.
      signature: { needed: rule.signatures, signedNotices: notice("approval_signed", payoutId) },
      reserve: this.#limits.reservation(checked.kind),
      // As a Confirm's claim, with a limit shared in the store: the request's slot is taken
      // in the move, only when it is made, and the move stamps the send time durably; with
      // both, it is the last check before the request leaves (one round trip, not three).
      // Without the slot, the request waits for one and the payout is checked again right
      // before it leaves, as it always is without a shared limit.
      ...(slot === undefined ? {} : { slot, stampSentAtMs: true, durable: true }),
      // Approved despite the payout it repeats: on record with the decision.
      ...(duplicate ? { auditDetails: { duplicateOf: duplicate.id } } : {}),
    };
    const result = await retryPayoutWrite(log, payoutId, "approve", () =>
      stores.payouts.transition(payoutId, "approve", patch, moveOptions),
    );
    if (!result.ok && result.reason === "over_limit") {
      const { payout } = result;
      const used =
        result.limit === "payer" ? { payerXaf: result.usedXaf } : { merchantXaf: result.usedXaf };
      const over = this.#limits.over(result.limit, used);
      const refusal = { actor, kind: payout.kind, amount: payout.amount, phone: payout.phone };
      await this.#limits.audit({ ...refusal, payoutId, step: "approve" }, over);
      return { outcome: "over_limit", payout, over };
    }
    if (!result.ok && result.reason === "already_signed") {
      return { outcome: "already_signed", payout: result.payout };
    }
    if (!result.ok) return decideRefusal(result);
    if (result.signed) {
      const given = result.payout.signatures?.length ?? 1;
      log.info({ payoutId, signedBy: approver.userId, given }, "approval signed");
      this.#onNoticeQueued();
      return { outcome: "signed", payout: result.payout, given, needed: rule.signatures };
    }
    log.info({ payoutId, approvedBy: approver.userId }, "payout approved");
    this.#onNoticeQueued();
    const ready = result.slotTaken === true && result.durable;
    return { outcome: "claimed", payout: result.payout, claimId, actor, checked: ready };
  }

  /** Reject: `awaiting_approval → rejected`; the amount goes back to the day's limits. */
  async reject(payoutId: string, approver: Approver): Promise<RejectResult> {
    const checked = await this.#pending(payoutId, approver);
    if ("outcome" in checked) return checked;
    const { stores, log, now } = this.#context;
    const result = await stores.payouts.transition(
      payoutId,
      "reject",
      { rejectedBy: approver.userId, decidedAtMs: now() },
      {
        actor: staffActor(approver),
        notices: notice("approval_decided", payoutId),
        // Rejecting a request of someone removed since is fine; deciding late-made is not.
        expect: standingExpected(approver, false, ruleOf(checked).roles),
      },
    );
    if (!result.ok) return decideRefusal(result);
    log.info({ payoutId, rejectedBy: approver.userId }, "payout rejected");
    this.#onNoticeQueued();
    return { outcome: "rejected", payout: result.payout };
  }

  /**
   * The initiator withdraws their own request while it waits: `awaiting_approval →
   * cancelled` (only its initiator, checked in the same step), the amount given back to its
   * day's limits, audited, and the approvers' cards told, all in one step.
   */
  async withdraw(payoutId: string, asker: Approver): Promise<WithdrawResult> {
    const { stores, log, now } = this.#context;
    const result = await stores.payouts.transition(
      payoutId,
      "withdraw",
      { decidedAtMs: now() },
      {
        actor: staffActor(asker),
        expect: { initiatorId: asker.userId },
        notices: notice("approval_decided", payoutId),
      },
    );
    if (!result.ok) {
      if (result.reason === "not_initiator") return { outcome: "forbidden", payout: result.payout };
      return lostRace(result);
    }
    log.info({ payoutId }, "approval request withdrawn");
    this.#onNoticeQueued();
    return { outcome: "withdrawn", payout: result.payout };
  }

  /**
   * The reason the approver who rejected `payoutId` gives afterwards (a reply to their
   * card): kept on the payout (the first one given), audited, and passed on to the payer.
   */
  async addReason(payoutId: string, approver: Approver, text: string): Promise<ReasonResult> {
    const { stores, log, now } = this.#context;
    const reason = cleanRemark(text);
    if (reason === undefined) return { outcome: "empty" };
    const payout = await stores.payouts.get(payoutId);
    if (!payout) return { outcome: "not_found" };
    if (payout.state !== "rejected" || payout.rejectedBy !== approver.userId) {
      return { outcome: "not_yours", payout };
    }
    if (payout.rejectionReason !== undefined) return { outcome: "already", payout };
    const updated = (await stores.payouts.update(payoutId, { rejectionReason: reason })) ?? payout;
    const actor = staffActor(approver);
    await stores.audit.record({
      atMs: now(),
      actorId: actor.id,
      actorRole: actor.role,
      action: "rejection_reason",
      payoutId,
      amount: payout.amount,
      details: { reason },
    });
    await stores.outbox.schedule(noticeKey({ kind: "rejection_reason", payoutId }), now(), {
      wake: true,
    });
    log.info({ payoutId }, "rejection reason given");
    this.#onNoticeQueued();
    return { outcome: "added", payout: updated };
  }

  /**
   * What waits for `approver`: payouts they may decide on, not expired, asked for after
   * they got their role (see `approve`), oldest first.
   */
  async waitingFor(approver: Approver): Promise<Payout[]> {
    const { stores } = this.#context;
    const [waiting, staff] = await Promise.all([
      stores.payouts.listInState("awaiting_approval"),
      stores.staff.list(),
    ]);
    const grantedAtMs = staff.find((member) => member.userId === approver.userId)?.grantedAtMs;
    return waiting
      .filter((payout) => mayDecide(approver, payout) === "allowed" && !this.#isLate(payout))
      .filter((payout) => (grantedAtMs ?? 0) <= payout.createdAtMs)
      .sort((a, b) => a.createdAtMs - b.createdAtMs || a.id.localeCompare(b.id));
  }

  /**
   * Expires every payout nobody decided on within APPROVAL_TTL_HOURS (the bot's own move);
   * the payer and the approvers are told. Returns how many expired.
   */
  async expireDue(): Promise<number> {
    return (await this.expireDueNext()).expired;
  }

  /** expireDue, and when the first approval still waiting lapses (null: none waits). */
  async expireDueNext(): Promise<{ expired: number; nextAtMs: number | null }> {
    const waiting = await this.#context.stores.payouts.listInState("awaiting_approval");
    let expired = 0;
    let nextAtMs: number | null = null;
    for (const payout of waiting) {
      if (!this.#isLate(payout)) {
        const atMs = payout.approvalExpiresAtMs;
        if (atMs !== undefined) nextAtMs = Math.min(nextAtMs ?? atMs, atMs);
        continue;
      }
      if ((await this.#expire(payout.id)).ok) expired += 1;
    }
    return { expired, nextAtMs };
  }

  /** The payout, if `approver` may decide on it now; else why not (expiring it if late). */
  async #pending(payoutId: string, approver: Approver): Promise<Payout | DecideRefusal> {
    const payout = await this.#context.stores.payouts.get(payoutId);
    if (!payout) return { outcome: "not_found" };
    const verdict = mayDecide(approver, payout);
    if (verdict !== "allowed") return { outcome: "forbidden", payout, why: verdict };
    if (payout.state !== "awaiting_approval") return { outcome: "already", payout };
    if (!this.#isLate(payout)) return payout;
    // The press only found out: time expired it (the bot's own move).
    const expired = await this.#expire(payoutId);
    return expired.ok ? { outcome: "expired", payout: expired.payout } : lostRace(expired);
  }

  #isLate(payout: Payout): boolean {
    const { approvalExpiresAtMs } = payout;
    return approvalExpiresAtMs !== undefined && this.#context.now() >= approvalExpiresAtMs;
  }

  async #expire(payoutId: string): Promise<TransitionResult> {
    const { stores, log } = this.#context;
    const result = await stores.payouts.transition(
      payoutId,
      "expire",
      {},
      {
        actor: SYSTEM_ACTOR,
        notices: notice("approval_decided", payoutId),
        auditDetails: { reason: "nobody approved it within APPROVAL_TTL_HOURS" },
      },
    );
    if (result.ok && result.applied) {
      log.info({ payoutId }, "approval expired");
      this.#onNoticeQueued();
    }
    return result;
  }
}
