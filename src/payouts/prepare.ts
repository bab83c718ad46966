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
import type { Role } from "../model/roles.js";
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
  type Drafted,
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

/** Preparation.draft: checked and drafted, not stored yet. */
export type DraftResult =
  | ({ outcome: "drafted" } & Drafted)
  | ({ outcome: "refused" } & PrepareFailure);

const NO_PROFILES: ReadonlyMap<number, UserProfile> = new Map();

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
  /** Prompts sent and not yet stored (publish), by payout id. */
  readonly #publishing = new Map<string, Promise<void>>();

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

  /**
   * Checks a /pay or /collect request (see `draft`) and stores it at once: for callers with
   * no message to show first (the prompt's own path is `draft`, then `publish`).
   */
  async prepare(input: PrepareInput, ahead?: PrepareAhead): Promise<PrepareResult> {
    const drafted = await this.draft(input, ahead);
    if (drafted.outcome === "refused") return drafted;
    const { replaced } = await this.#store(drafted.payout, input.initiatorRole);
    return { ...drafted, outcome: "prepared", ...(replaced ? { replaced } : {}) };
  }

  /**
   * Validates a /pay or /collect request, checks the operator is available for it, looks
   * up the registered name and checks the daily caps (read only: Confirm reserves), and
   * makes the payout awaiting confirmation, with the earlier payout of the same amount to
   * the same number it repeats (`duplicate`). Nothing is stored: `publish` does, once its
   * prompt is sent.
   */
  async draft(input: PrepareInput, ahead?: PrepareAhead): Promise<DraftResult> {
    const { stores, now } = this.#context;
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
    const repeated = early
      ? Promise.resolve(early.duplicate)
      : this.#rules.duplicates.latest({
          phone: phone.phone,
          amount: amount.amount,
          kind: input.kind,
        });
    // The duplicate's author is read while the Payment API answers the name look-up.
    // A repeat of the sender's own payout (the usual case) names them as their update does:
    // one round trip fewer before the prompt.
    const own = input.initiatorProfile;
    const authors = repeated.then((duplicate) => {
      if (!duplicate) return NO_PROFILES;
      if (own && duplicate.initiatorId === input.initiatorId) {
        return new Map([[input.initiatorId, own]]);
      }
      return stores.profiles.getMany([duplicate.initiatorId]);
    });
    const [name, duplicate, over, profiles] = await Promise.all([
      this.#registeredName(phone, input.kind, early?.slotTaken === true),
      repeated,
      early ? early.over : this.#rules.limits.check(input.kind, input.initiatorId, amount.amount),
      authors,
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
    const names = new Map([...profiles].map(([id, profile]) => [id, profile.firstName]));
    return { outcome: "drafted", payout, names, ...(duplicate ? { duplicate } : {}) };
  }

  /**
   * Shows a drafted payout's prompt (`send` resolves with its message id), then stores the
   * payout with that message id in one write, and retires the initiator's older prompt in
   * the chat (`replaced`). The prompt is on its way one store write sooner than if stored
   * first; a press that reaches another process before the write finds nothing yet (the
   * press handlers say so), one that reaches this process waits for it (`stored`). When the
   * send fails nothing is stored: no record is left behind for a prompt nobody saw.
   */
  async publish(
    payout: Payout,
    role: Role,
    send: () => Promise<number>,
  ): Promise<{ messageId: number; replaced?: Payout }> {
    const storing = (async () => {
      const messageId = await send();
      const { replaced } = await this.#store({ ...payout, messageId }, role);
      return { messageId, ...(replaced ? { replaced } : {}) };
    })();
    const done = storing.then(
      () => undefined,
      () => undefined,
    );
    this.#publishing.set(payout.id, done);
    void done.then(() => this.#publishing.delete(payout.id));
    return storing;
  }

  /**
   * Resolves once the prompt of `payoutId` that this process is publishing is stored (or
   * failed to be); at once when it publishes none. Presses wait on it: a Confirm pressed
   * the instant its prompt appeared is not refused for the few milliseconds of the write.
   */
  async stored(payoutId: string): Promise<void> {
    await this.#publishing.get(payoutId);
  }

  /** Whether `stored(payoutId)` has nothing to wait for now (checked synchronously). */
  isStored(payoutId: string): boolean {
    return !this.#publishing.has(payoutId);
  }

  /** Stores a drafted payout and retires the initiator's older prompt it replaces. */
  async #store(payout: Payout, role: Role): Promise<{ replaced: Payout | null }> {
    const { stores, log } = this.#context;
    const asker = { userId: payout.initiatorId, role };
    const created = await stores.payouts.create(payout, { actor: staffActor(asker) });
    log.info(
      {
        payoutId: payout.id,
        kind: payout.kind,
        phone: maskPhone(payout.phone),
        amount: payout.amount,
        duplicateOf: payout.duplicateOf,
      },
      "payout prepared",
    );
    // The older prompt is read again only while it may still be open: rarely.
    const older = created.replaced;
    const replaced =
      older?.state === "awaiting_confirmation"
        ? await this.retire(older.id, asker, { replacedBy: payout.id })
        : null;
    return { replaced };
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
