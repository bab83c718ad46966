/**
 * The first step of a payout: a /pay or /collect request checked (number, amount, the
 * operator's availability, the registered name, the daily caps) and stored as a prompt
 * awaiting the initiator's Confirm, with a warning when the same amount went to the same
 * number lately; it retires the initiator's older prompt in the chat. And the prompt's
 * other ways out: Cancel, /cancel, a newer prompt.
 */
import { maskPhone } from "../logger.js";
import { SYSTEM_ACTOR, staffActor } from "../model/audit.js";
import { parseAmount } from "../model/money.js";
import type { Payout, PayoutKind } from "../model/payout.js";
import { type PhoneParseResult, parsePhone } from "../model/phone.js";
import type { UserProfile } from "../model/staff.js";
import { cleanName, cleanNote } from "../model/text.js";
import {
  LimiterUnavailableError,
  PaymentApiError,
  PaymentClientError,
} from "../payments/errors.js";
import type { Duplicates } from "./duplicates.js";
import { newPayoutId } from "./ids.js";
import type { Limits } from "./limits.js";
import type { Lookups } from "./lookups.js";
import { type Asker, mayCancel } from "./policy.js";
import type { OverLimit } from "./types.js";
import {
  type CancelResult,
  lostRace,
  type PrepareFailure,
  type PrepareInput,
  type PrepareResult,
  type StepContext,
} from "./types.js";

/**
 * A prompt's reads that come before the registered name, started ahead: in the same round
 * trip as the update's own reads (staff, language, dialog), before the role is known. They
 * are reads, plus the name look-up's rate-limit slot (one not used is simply spent: started
 * only for someone who could pay at their last /pay here). `prepare` uses them when its
 * request is the one they were started for, and reads again otherwise.
 */
export interface PrepareAhead {
  readonly key: string;
  readonly reads: Promise<AheadReads>;
}

interface AheadReads {
  duplicate: Payout | undefined;
  over: OverLimit | null;
  slotTaken: boolean;
}

/** The request a PrepareAhead was started for. */
export interface AheadRequest {
  kind: PayoutKind;
  phone: string;
  amount: string;
  initiatorId: number;
}

function aheadKey(kind: PayoutKind, phone: string, amount: number, initiatorId: number): string {
  return `${kind}:${phone}:${amount}:${initiatorId}`;
}

/** What Preparation checks besides the request itself. */
export interface PrepareRules {
  limits: Limits;
  /** The duplicate rule (DUPLICATE_WINDOW_MINUTES), shared with approval. */
  duplicates: Duplicates;
}

export class Preparation {
  readonly #context: StepContext;
  readonly #lookups: Lookups;
  readonly #ttlMs: number;
  readonly #rules: PrepareRules;

  constructor(
    context: StepContext,
    lookups: Lookups,
    confirmationTtlSeconds: number,
    rules: PrepareRules,
  ) {
    this.#context = context;
    this.#lookups = lookups;
    this.#ttlMs = confirmationTtlSeconds * 1000;
    this.#rules = rules;
  }

  /**
   * Validates a /pay or /collect request, checks the operator is available for it, looks
   * up the registered name and checks the daily caps (read only: Confirm reserves); on
   * success stores the payout awaiting confirmation, with the earlier payout of the same
   * amount to the same number it repeats (`duplicate`), and retires the initiator's older
   * prompt in the chat (`replaced`). Nothing is stored on any failure.
   */
  /**
   * Starts the reads of a prompt for `request` (see PrepareAhead); undefined when its number
   * or amount would be refused anyway.
   */
  ahead(request: AheadRequest): PrepareAhead | undefined {
    const phone = parsePhone(request.phone);
    const amount = parseAmount(request.amount);
    if (!phone.ok || !amount.ok) return undefined;
    const { kind, initiatorId } = request;
    const reads = Promise.all([
      this.#rules.duplicates.latest({ phone: phone.phone, amount: amount.amount, kind }),
      this.#rules.limits.check(kind, initiatorId, amount.amount),
      this.#context.gateway.takeSlot?.() ?? Promise.resolve(false),
    ]).then(([duplicate, over, slotTaken]) => ({ duplicate, over, slotTaken }));
    // Used by `prepare`, or dropped (the sender may not pay after all): never unhandled.
    reads.catch(() => {});
    return { key: aheadKey(kind, phone.phone, amount.amount, initiatorId), reads };
  }

  async prepare(input: PrepareInput, ahead?: PrepareAhead): Promise<PrepareResult> {
    const { stores, log, now } = this.#context;
    const phone = parsePhone(input.phone);
    if (!phone.ok) {
      return {
        outcome: "refused",
        reason: "bad_phone",
        problem: phone.problem,
        operator: phone.operator,
      };
    }
    const amount = parseAmount(input.amount);
    if (!amount.ok) return { outcome: "refused", reason: "bad_amount", problem: amount.problem };

    // Read ahead for this very request, or here while the Payment API answers: no wait.
    const key = aheadKey(input.kind, phone.phone, amount.amount, input.initiatorId);
    const early = ahead?.key === key ? await ahead.reads.catch(() => undefined) : undefined;
    const [name, duplicate, over] = await Promise.all([
      this.#registeredName(phone, input.kind, early?.slotTaken === true),
      early
        ? early.duplicate
        : this.#rules.duplicates.latest({
            phone: phone.phone,
            amount: amount.amount,
            kind: input.kind,
          }),
      early ? early.over : this.#rules.limits.check(input.kind, input.initiatorId, amount.amount),
    ]);
    if (typeof name !== "string") return { outcome: "refused", ...name };
    if (over) {
      const actor = staffActor({ userId: input.initiatorId, role: input.initiatorRole });
      const refusal = { actor, kind: input.kind, amount: amount.amount, phone: phone.phone };
      await this.#rules.limits.audit({ ...refusal, step: "prompt" }, over);
      return { outcome: "refused", reason: "over_limit", over };
    }

    const nowMs = now();
    const payout: Payout = {
      id: newPayoutId(),
      kind: input.kind,
      state: "awaiting_confirmation",
      phone: phone.phone,
      operator: phone.operator,
      recipientName: name,
      amount: amount.amount,
      note: cleanNote(input.note),
      initiatorId: input.initiatorId,
      chatId: input.chatId,
      locale: input.locale,
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
      expiresAtMs: nowMs + this.#ttlMs,
      ...(duplicate ? { duplicateOf: duplicate.id } : {}),
      ...(input.saved
        ? {
            recipientAlias: input.saved.alias,
            savedName: input.saved.savedName,
            savedAtMs: input.saved.savedAtMs,
          }
        : {}),
    };
    const asker = { userId: input.initiatorId, role: input.initiatorRole };
    // The duplicate's author is read in the same round trip as the creation.
    const [created, profiles] = await Promise.all([
      stores.payouts.create(payout, { actor: staffActor(asker) }),
      duplicate ? stores.profiles.getMany([duplicate.initiatorId]) : new Map<number, UserProfile>(),
    ]);
    const names = new Map([...profiles].map(([id, profile]) => [id, profile.firstName]));
    log.info(
      {
        payoutId: payout.id,
        kind: payout.kind,
        phone: maskPhone(payout.phone),
        amount: payout.amount,
        duplicateOf: duplicate?.id,
      },
      "payout prepared",
    );
    // The older prompt is read again only while it may still be open: rarely.
    const older = created.replaced;
    const replaced =
      older?.state === "awaiting_confirmation"
        ? await this.retire(older.id, asker, { replacedBy: payout.id })
        : null;
    return {
      outcome: "prepared",
      payout,
      names,
      ...(duplicate ? { duplicate } : {}),
      ...(replaced ? { replaced } : {}),
    };
  }

  /**
   * Retires an open prompt of `asker`'s (a newer one replaced it, or /cancel): cancelled,
   * or expired when its button already had. Null when there was nothing to retire.
   */
  async retire(
    payoutId: string,
    asker: NonNullable<Asker>,
    why: { replacedBy: string } | { command: "cancel" },
  ): Promise<Payout | null> {
    const { stores, now } = this.#context;
    const payout = await stores.payouts.get(payoutId);
    if (payout?.state !== "awaiting_confirmation") return null;
    if (mayCancel(asker, payout) !== "allowed") return null;
    const late = now() > payout.expiresAtMs;
    const result = await stores.payouts.transition(
      payoutId,
      late ? "expire" : "cancel",
      {},
      {
        actor: late ? SYSTEM_ACTOR : staffActor(asker),
        auditDetails: "replacedBy" in why ? { replacedBy: why.replacedBy } : { command: "/cancel" },
      },
    );
    return result.ok ? result.payout : null;
  }

  /**
   * The registered name behind `phone`, once its operator is known to take `kind`;
   * `slotTaken`: its rate-limit slot was taken ahead.
   */
  async #registeredName(
    phone: Extract<PhoneParseResult, { ok: true }>,
    kind: PayoutKind,
    slotTaken: boolean,
  ): Promise<string | PrepareFailure> {
    try {
      if (!(await this.#lookups.isOperational(phone.operator, kind))) {
        return { reason: "operator_unavailable", operator: phone.operator, kind };
      }
      const send = slotTaken ? { slotTaken } : undefined;
      const name = cleanName(await this.#context.gateway.getUserInfo(phone.phone, send));
      return name === "" ? { reason: "no_account", phone: phone.phone } : name;
    } catch (error) {
      if (error instanceof PaymentApiError && error.statusCode === 404) {
        return { reason: "no_account", phone: phone.phone };
      }
      // The shared rate limiter is in Redis: its failure is the storage's, not the API's.
      if (error instanceof LimiterUnavailableError) throw error;
      if (error instanceof PaymentClientError) return { reason: "api_error", error };
      throw error;
    }
  }

  /** Remembers which message shows the prompt, so later states can edit it. */
  async attachMessage(payoutId: string, messageId: number): Promise<void> {
    await this.#context.stores.payouts.update(payoutId, { messageId });
  }

  /** Cancel on a prompt: only its initiator, only while it awaits confirmation. */
  async cancel(payoutId: string, asker: Asker): Promise<CancelResult> {
    const { stores } = this.#context;
    const payout = await stores.payouts.get(payoutId);
    if (!payout) return { outcome: "not_found" };
    if (mayCancel(asker, payout) !== "allowed") return { outcome: "forbidden", payout };
    const actor = asker ? staffActor(asker) : undefined;
    const result = await stores.payouts.transition(payoutId, "cancel", {}, { actor });
    return result.ok ? { outcome: "cancelled", payout: result.payout } : lostRace(result);
  }
}
