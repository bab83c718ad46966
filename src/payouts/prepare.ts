/**
 * The first step of a payout: a /pay or /collect request checked (number, amount, the
 * operator's availability, the registered name) and stored as a prompt awaiting the
 * initiator's Confirm; and the prompt's other way out, Cancel.
 */
import { randomBytes } from "node:crypto";
import { maskPhone } from "../logger.js";
import { staffActor } from "../model/audit.js";
import { parseAmount } from "../model/money.js";
import type { Payout } from "../model/payout.js";
import { parsePhone } from "../model/phone.js";
import { cleanName, cleanNote } from "../model/text.js";
import {
  LimiterUnavailableError,
  PaymentApiError,
  PaymentClientError,
} from "../payments/errors.js";
import type { TransitionResult } from "../store/types.js";
import type { Lookups } from "./lookups.js";
import { type Asker, mayCancel } from "./policy.js";
import type { CancelResult, PrepareInput, PrepareResult, StepContext } from "./types.js";

/** A compare-and-set that found the payout gone or already moved on by someone else. */
export function lostRace(
  result: Extract<TransitionResult, { ok: false }>,
): { outcome: "not_found" } | { outcome: "already"; payout: Payout } {
  return result.reason === "not_found"
    ? { outcome: "not_found" }
    : { outcome: "already", payout: result.payout };
}

export class Preparation {
  readonly #context: StepContext;
  readonly #lookups: Lookups;
  readonly #ttlMs: number;

  constructor(context: StepContext, lookups: Lookups, confirmationTtlSeconds: number) {
    this.#context = context;
    this.#lookups = lookups;
    this.#ttlMs = confirmationTtlSeconds * 1000;
  }

  /**
   * Validates a /pay or /collect request, checks the operator is available for it and
   * looks up the registered name; on success stores the payout awaiting confirmation.
   * Nothing is stored on any failure.
   */
  async prepare(input: PrepareInput): Promise<PrepareResult> {
    const { gateway, stores, log, now } = this.#context;
    const phone = parsePhone(input.phone);
    if (!phone.ok) {
      return { ok: false, reason: "bad_phone", problem: phone.problem, operator: phone.operator };
    }
    const amount = parseAmount(input.amount);
    if (!amount.ok) return { ok: false, reason: "bad_amount", problem: amount.problem };

    let name: string;
    try {
      if (!(await this.#lookups.isOperational(phone.operator, input.kind))) {
        return {
          ok: false,
          reason: "operator_unavailable",
          operator: phone.operator,
          kind: input.kind,
        };
      }
      name = cleanName(await gateway.getUserInfo(phone.phone));
    } catch (error) {
      if (error instanceof PaymentApiError && error.statusCode === 404) {
        return { ok: false, reason: "no_account", phone: phone.phone };
      }
      // The shared rate limiter is in Redis: its failure is the storage's, not the API's.
      if (error instanceof LimiterUnavailableError) throw error;
      if (error instanceof PaymentClientError) return { ok: false, reason: "api_error", error };
      throw error;
    }
    if (name === "") return { ok: false, reason: "no_account", phone: phone.phone };

    const nowMs = now();
    const payout: Payout = {
      id: randomBytes(12).toString("base64url"),
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
    };
    await stores.payouts.create(payout, {
      actor: staffActor({ userId: input.initiatorId, role: input.initiatorRole }),
    });
    log.info(
      {
        payoutId: payout.id,
        kind: payout.kind,
        phone: maskPhone(payout.phone),
        amount: payout.amount,
      },
      "payout prepared",
    );
    return { ok: true, payout };
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
