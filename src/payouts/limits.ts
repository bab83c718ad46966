/**
 * The daily spending caps (PAYER_DAILY_LIMIT_XAF, MERCHANT_DAILY_LIMIT_XAF), per calendar
 * day in the merchant's zone. They cap the money that leaves: payouts (disbursements); a
 * collection brings money in and counts against nothing. What counts is reserved at
 * Confirm, in the same atomic step as the payout's move (PayoutStore.transition's
 * `reserve`), so two Confirms racing at a cap cannot both pass; a payout that ends paying
 * nothing gives its amount back in the step that says so. Here: the reservation a Confirm
 * makes, the read-only check of a new prompt, what a refusal says, and /limits.
 */
import { maskPhone } from "../logger.js";
import type { ApprovalBand } from "../model/approval-rules.js";
import type { Actor } from "../model/audit.js";
import type { PayoutKind } from "../model/payout.js";
import type { Reservation } from "../store/types.js";
import { dayOf } from "../time.js";
import { DECIDING_ROLES } from "./policy.js";
import type { LimitName, OverLimit, PayoutRules, StepContext } from "./types.js";

/** One day's caps and what they counted (/limits). */
export interface LimitsReport {
  day: string;
  payerCapXaf: number | undefined;
  merchantCapXaf: number | undefined;
  merchantUsedXaf: number;
  /** User id → XAF counted today, for those who spent anything. */
  byUser: ReadonlyMap<number, number>;
  /** The approval rules (APPROVAL_RULES, or the threshold as one band); empty: none. */
  approvalBands: readonly ApprovalBand[];
}

/** What was refused, for the audit log. */
export interface LimitRefusal {
  actor: Actor;
  kind: PayoutKind;
  amount: number;
  /** The number, for a payout; absent for a batch's total. */
  phone?: string;
  payoutId?: string;
  batchId?: string;
  /** Where: a new prompt, its Confirm, or an approval (a payout's or a batch's). */
  step: "prompt" | "confirm" | "approve";
}

export class Limits {
  readonly #context: StepContext;
  readonly #rules: PayoutRules;

  constructor(context: StepContext, rules: PayoutRules) {
    this.#context = context;
    this.#rules = rules;
  }

  /** Today, in the merchant's zone (YYYY-MM-DD). */
  #today(): string {
    return dayOf(this.#context.now(), this.#rules.timeZone);
  }

  /**
   * What the Confirm of a `kind` reserves: a payout, today, under the caps that are set; a
   * collection, nothing. Every payout reserves, caps or not, so that /limits shows the
   * day's spending and a cap set later counts what was already spent.
   */
  reservation(kind: PayoutKind): Reservation | undefined {
    if (kind !== "disbursement") return undefined;
    return {
      kind,
      day: this.#today(),
      payerCapXaf: this.#rules.payerDailyLimitXaf ?? null,
      merchantCapXaf: this.#rules.merchantDailyLimitXaf ?? null,
    };
  }

  /**
   * Whether a `kind` of `amount` by `userId` would pass a cap today, as things stand (read
   * only: the Confirm checks again, atomically). Null when it fits, when no cap is set,
   * and for a collection.
   */
  async check(kind: PayoutKind, userId: number, amount: number): Promise<OverLimit | null> {
    const { payerDailyLimitXaf: payerCap, merchantDailyLimitXaf: merchantCap } = this.#rules;
    if (kind !== "disbursement") return null;
    if (payerCap === undefined && merchantCap === undefined) return null;
    const usage = await this.#context.stores.spending.usage(this.#today());
    const used = { payerXaf: usage.byUser.get(userId) ?? 0, merchantXaf: usage.merchantXaf };
    if (payerCap !== undefined && used.payerXaf + amount > payerCap)
      return this.over("payer", used);
    if (merchantCap !== undefined && used.merchantXaf + amount > merchantCap) {
      return this.over("merchant", used);
    }
    return null;
  }

  /**
   * A refusal at cap `limit`, from what was counted today: `used.payerXaf` (the
   * initiator's) and `used.merchantXaf` (everyone's), as far as they are known (the store's
   * refusal knows the failing one's). `leftXaf` is the most that fits under every cap whose
   * count is known.
   */
  over(limit: LimitName, used: { payerXaf?: number; merchantXaf?: number }): OverLimit {
    const caps = {
      payer: this.#rules.payerDailyLimitXaf,
      merchant: this.#rules.merchantDailyLimitXaf,
    };
    const counted = { payer: used.payerXaf, merchant: used.merchantXaf };
    const lefts = (["payer", "merchant"] as const).flatMap((name) => {
      const cap = caps[name];
      const spent = counted[name];
      return cap === undefined || spent === undefined ? [] : [cap - spent];
    });
    const usedXaf = counted[limit] ?? 0;
    const leftXaf = lefts.length === 0 ? 0 : Math.max(0, Math.min(...lefts));
    return { limit, capXaf: caps[limit] ?? usedXaf, usedXaf, leftXaf };
  }

  /** The most `userId` may still pay today under every cap; undefined when there is none. */
  async left(userId: number): Promise<number | undefined> {
    const { payerDailyLimitXaf, merchantDailyLimitXaf } = this.#rules;
    if (payerDailyLimitXaf === undefined && merchantDailyLimitXaf === undefined) return undefined;
    const usage = await this.#context.stores.spending.usage(this.#today());
    const used = { payerXaf: usage.byUser.get(userId) ?? 0, merchantXaf: usage.merchantXaf };
    return this.over("payer", used).leftXaf;
  }

  /** Writes a refusal to the audit log: who tried what, which cap, what it had counted. */
  async audit(refusal: LimitRefusal, over: OverLimit): Promise<void> {
    const { stores, now, log } = this.#context;
    log.info(
      { payoutId: refusal.payoutId, limit: over.limit, amount: refusal.amount, step: refusal.step },
      "refused: over a daily limit",
    );
    await stores.audit.record({
      atMs: now(),
      actorId: refusal.actor.id,
      actorRole: refusal.actor.role,
      action: "limit_refused",
      ...(refusal.payoutId === undefined ? {} : { payoutId: refusal.payoutId }),
      ...(refusal.batchId === undefined ? {} : { batchId: refusal.batchId }),
      amount: refusal.amount,
      ...(refusal.phone === undefined ? {} : { phone: maskPhone(refusal.phone) }),
      details: {
        kind: refusal.kind,
        step: refusal.step,
        limit: over.limit,
        capXaf: over.capXaf,
        usedXaf: over.usedXaf,
        day: this.#today(),
      },
    });
  }

  /** Today's caps and what they counted. */
  async report(): Promise<LimitsReport> {
    const day = this.#today();
    const usage = await this.#context.stores.spending.usage(day);
    return {
      day,
      payerCapXaf: this.#rules.payerDailyLimitXaf,
      merchantCapXaf: this.#rules.merchantDailyLimitXaf,
      merchantUsedXaf: usage.merchantXaf,
      byUser: usage.byUser,
      approvalBands: this.#rules.approvalBands ?? approvalBandsOf(this.#rules.approvalThresholdXaf),
    };
  }
}

/** The bands a bare threshold stands for (rules built without APPROVAL_RULES): X:1. */
function approvalBandsOf(thresholdXaf: number | undefined): ApprovalBand[] {
  return thresholdXaf === undefined
    ? []
    : [{ fromXaf: thresholdXaf, signatures: 1, roles: DECIDING_ROLES }];
}
