/**
 * Staff changes, the step admins (with `/staff`) and the `STAFF` setting at start take:
 * a role given or taken away, audited with the role it replaced. A change that takes away
 * someone's standing to pay (removed, or a role that may not pay) also ends what they had
 * open: each prompt and each request waiting for approval is cancelled (`initiator_removed`,
 * its held amount given back, its approvers' cards told, in the move's own atomic step),
 * their batches not yet done are stopped, their schedules cancelled (waiting for Confirm or
 * approval) or paused (active: schedule/standing.ts), and the person and the admins are told (one
 * `standing_lost` notice, queued before the first move to be due a while later, and made
 * due at the end).
 */
import { type Actor, actorFields, SYSTEM_ACTOR, staffActor } from "../model/audit.js";
import { type Notice, noticeKey } from "../model/notice.js";
import type { Payout } from "../model/payout.js";
import type { Role } from "../model/roles.js";
import type { StaffMember, StaffOrigin } from "../model/staff.js";
import type { Batches } from "./batch/batch.js";
import { PAYING_ROLES } from "./policy.js";
import { stopSchedulesOf } from "./schedule/standing.js";
import type { StepContext } from "./types.js";

/** Who makes a staff change: an admin, or null for the `STAFF` setting at start. */
export type StaffChanger = Pick<StaffMember, "userId" | "role"> | null;

export interface StaffChangeResult {
  /** `unchanged`: the role was already that, or the one removed was not on staff. */
  outcome: "changed" | "unchanged";
  /** Prompts and requests of theirs cancelled because they can no longer pay. */
  cancelled: number;
  /** Their batches stopped (or cancelled before they ran) for the same reason. */
  batchesStopped: number;
  /** Their schedules cancelled or paused for the same reason. */
  schedulesStopped: number;
}

const NOTHING_STOPPED = { cancelled: 0, batchesStopped: 0, schedulesStopped: 0 } as const;

/**
 * How long the notice of a change waits, queued before its first move, should the change
 * not reach its end (the process stopped): then the person and the admins are told late.
 */
export const STANDING_NOTICE_HOLD_MS = 2 * 60_000;

/** How many of a person's latest payouts are read, a page at a time, for open prompts. */
const PROMPT_PAGE = 50;

export class StaffChanges {
  readonly #context: StepContext;
  readonly #batches: Batches;
  readonly #confirmationTtlMs: number;
  readonly #onNoticeQueued: () => void;

  constructor(
    context: StepContext,
    batches: Batches,
    confirmationTtlMs: number,
    onNoticeQueued: () => void,
  ) {
    this.#context = context;
    this.#batches = batches;
    this.#confirmationTtlMs = confirmationTtlMs;
    this.#onNoticeQueued = onNoticeQueued;
  }

  /** Gives `userId` the role `role` (a new member, or a change), by `by`. */
  async set(userId: number, role: Role, by: StaffChanger): Promise<StaffChangeResult> {
    const { stores, now } = this.#context;
    const before = await stores.staff.get(userId);
    const atMs = now();
    const origin: StaffOrigin = by
      ? { source: "runtime", byUserId: by.userId, atMs }
      : { source: "env" };
    // The store keeps the first grant time when the role is restated.
    await stores.staff.set(userId, role, origin, by ? atMs : undefined);
    if (before === role) return { outcome: "unchanged", ...NOTHING_STOPPED };
    // STAFF bringing in a new member is configuration read at start, not a change of
    // anyone's standing: only its changes to a member's role are audited.
    if (by !== null || before !== null) {
      await this.#audit(by, "staff_set", { userId, role, oldRole: before });
    }
    return { outcome: "changed", ...(await this.#afterChange(userId, before, role, by, atMs)) };
  }

  /** Takes `userId` off staff, by `by`. */
  async remove(userId: number, by: StaffChanger): Promise<StaffChangeResult> {
    const { stores, now } = this.#context;
    const before = await stores.staff.get(userId);
    const atMs = now();
    // A removal by `/staff` is remembered (a restart does not bring them back from STAFF);
    // one by STAFF takes the origin with it.
    const origin: StaffOrigin | undefined = by
      ? { source: "runtime", byUserId: by.userId, atMs }
      : undefined;
    const removed = await stores.staff.remove(userId, origin);
    if (!removed) return { outcome: "unchanged", ...NOTHING_STOPPED };
    await this.#audit(by, "staff_removed", { userId, oldRole: before });
    return { outcome: "changed", ...(await this.#afterChange(userId, before, null, by, atMs)) };
  }

  /** Ends what `userId` had open when the change took their standing to pay away. */
  async #afterChange(
    userId: number,
    before: Role | null,
    after: Role | null,
    by: StaffChanger,
    atMs: number,
  ): Promise<Omit<StaffChangeResult, "outcome">> {
    const couldPay = before !== null && PAYING_ROLES.includes(before);
    const canPay = after !== null && PAYING_ROLES.includes(after);
    if (!couldPay || canPay) return NOTHING_STOPPED;
    const { stores, log } = this.#context;
    const byUserId = by?.userId ?? 0;
    const actor: Actor = by ? staffActor(by) : SYSTEM_ACTOR;
    const standing: Notice = { kind: "standing_lost", userId, byUserId, atMs };
    // Queued first, due only later: should this process stop halfway, the notice still
    // goes (with what was cancelled by then); while it runs, no notifier can send a summary
    // of half the change and then, once it is due below, a second one.
    await stores.outbox.schedule(noticeKey(standing), atMs + STANDING_NOTICE_HOLD_MS, {
      wake: true,
    });
    let cancelled = 0;
    for (const payout of await this.#openOf(userId)) {
      const notices: Notice[] = [];
      if (payout.state === "awaiting_approval") {
        notices.push({ kind: "approval_decided", payoutId: payout.id });
      }
      const result = await stores.payouts.transition(
        payout.id,
        "initiator_removed",
        { cancelledBy: byUserId, decidedAtMs: atMs },
        { actor, notices, auditDetails: { reason: after === null ? "removed" : "demoted" } },
      );
      // One that moved on meanwhile (confirmed, decided, expired) is left as it is now.
      if (result.ok && result.applied) cancelled += 1;
    }
    const batchesStopped = await this.#batches.stopAllOf(userId, actor, []);
    const reason = after === null ? "removed" : "demoted";
    const schedulesStopped = await stopSchedulesOf(stores, { userId, actor, atMs, reason });
    // Due now that all is done (told even when nothing was open: the admins' summary).
    await stores.outbox.schedule(noticeKey(standing), atMs, { wake: true });
    log.info(
      { userId, cancelled, batchesStopped, schedulesStopped },
      "staff member lost the standing to pay",
    );
    this.#onNoticeQueued();
    return { cancelled, batchesStopped, schedulesStopped };
  }

  /**
   * `userId`'s prompts still waiting for Confirm (created within the confirmation window:
   * older ones can no longer be confirmed) and requests waiting for approval.
   */
  async #openOf(userId: number): Promise<Payout[]> {
    const { stores, now } = this.#context;
    const waiting = (await stores.payouts.listInState("awaiting_approval")).filter(
      (payout) => payout.initiatorId === userId,
    );
    const since = now() - this.#confirmationTtlMs;
    const prompts: Payout[] = [];
    for (let offset = 0; ; offset += PROMPT_PAGE) {
      const { items } = await stores.payouts.list({ userId, offset, limit: PROMPT_PAGE });
      for (const payout of items) {
        if (payout.state === "awaiting_confirmation" && payout.batchId === undefined) {
          prompts.push(payout);
        }
      }
      const last = items.at(-1);
      if (items.length < PROMPT_PAGE || last === undefined || last.createdAtMs < since) break;
    }
    return [...waiting, ...prompts];
  }

  async #audit(
    by: StaffChanger,
    action: "staff_set" | "staff_removed",
    details: Record<string, string | number | null>,
  ): Promise<void> {
    const { stores, now } = this.#context;
    const actor = by ? staffActor(by) : SYSTEM_ACTOR;
    await stores.audit.record({
      atMs: now(),
      ...actorFields(actor),
      action,
      details: by ? details : { ...details, source: "STAFF" },
    });
  }
}
