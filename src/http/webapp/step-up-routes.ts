/**
 * The step-up's part of the Mini App API: the PIN set on first use (typed twice), and a
 * big payout's, batch's or schedule's Confirm (its initiator) or Approve (an approver) with
 * the PIN. The route only reads its input and calls the steps (app-step-up.ts wires them):
 * the item is checked first (no try is spent on an item that is not the caller's or no
 * longer waits), then the PIN, then the very step the chat button calls, given the proof
 * the right PIN made. The PIN is never logged or echoed. Answers (ACTION: see
 * STEP_UP_ACTIONS; `confirm` and `approve` stand for all):
 *
 * - GET  `step-up/ACTION/:id` → 200 `{ payout | batch | schedule, pin }` (the prompt's or
 *   card's facts; where the caller's PIN stands) | 404.
 * - POST `step-up/pin` `{ pin, repeat }` → 201 | 400 `malformed`/`mismatch` | 409 `already_set`
 *   | 423 `pin_locked` `{ untilMs }` (a lock a reset kept) | 401 `{ reason: "pin_stale" }`
 *   (the first PIN after a reset, with init data signed before it).
 * - POST `step-up/confirm/:id` `{ pin }`, `step-up/approve/:id` `{ pin, duplicateSeenAtMs? }`
 *   → 200 `{ outcome, state }` once done (the outcome of the one request, or
 *   `approval_requested`) | 400 `malformed` | 403 `forbidden` | 404 | 409
 *   `pin_not_set`/`already`/`over_limit` | 409 `duplicate` `{ duplicateSeenAtMs }` (send it
 *   back with the PIN to approve anyway) | 410 `expired` | 422 `wrong_pin`
 *   `{ left }` | 423 `pin_locked` `{ untilMs }`.
 *
 * Setting and trying a PIN, as every change, take init data signed within the last 10
 * minutes (the handler's rule, auth.ts FRESH_FOR_CHANGES_SECONDS: 401 `stale_for_change`
 * and nothing is counted): whoever captured a copy must not spend someone's tries (locking
 * their PIN) or set the PIN of someone who has none with it. The first PIN after a reset
 * takes init data signed since the reset (`auth_date` at or after its second): whoever
 * captured a copy before cannot choose the new PIN. The page, reopened from the chat, gets
 * fresh init data.
 */
import { z } from "zod";
import type { PinStatus } from "../../model/pin.js";
import type { WebAppUser } from "./auth.js";
import { failure, type WebAppReply, type WebAppRoute } from "./routes.js";

/** The facts the chat prompt showed, for the page to show the same. */
export interface StepUpItem {
  id: string;
  kind: "disbursement" | "collection";
  amount: number;
  recipientName: string;
  /** As the prompt shows it (`+237 6 70 00 00 01`). */
  phone: string;
  operator: string;
  note: string | undefined;
  expiresAtMs: number;
}

export type StepUpConfirmOutcome =
  | { outcome: "not_found" }
  | { outcome: "pin"; result: "malformed" | "none" }
  | { outcome: "pin"; result: "wrong"; left: number }
  | { outcome: "pin"; result: "locked"; untilMs: number }
  /** The PIN was right and the Confirm step ran: its outcome, and the payout after it. */
  | { outcome: "confirmed"; result: string; state: string }
  /**
   * The PIN was right, but the payout repeats one the approver was not shown: nothing moved.
   * `duplicateSeenAtMs` (that payout's creation time) sent back with the PIN approves anyway.
   */
  | { outcome: "duplicate"; duplicateSeenAtMs: number };

/**
 * What a PIN unlocks: the initiator's Confirm, or an approver's Approve, of a payout, a
 * batch or a schedule.
 */
export type StepUpAction =
  | "confirm"
  | "approve"
  | "batch-confirm"
  | "batch-approve"
  | "schedule-confirm"
  | "schedule-approve";

export const STEP_UP_ACTIONS: readonly StepUpAction[] = [
  "confirm",
  "approve",
  "batch-confirm",
  "batch-approve",
  "schedule-confirm",
  "schedule-approve",
];

/** A batch's facts, as its preview or approval card showed them. */
export interface StepUpBatch {
  id: string;
  fileName: string;
  /** Rows to be paid. */
  rows: number;
  totalXaf: number;
  expiresAtMs: number | undefined;
}

/**
 * Something that moves money again and again (a schedule now; a recurring batch may come),
 * as its prompt or approval card showed it: what each run pays, the plan and the next runs
 * in words, in the caller's language (the chat's own wording).
 */
export interface StepUpSchedule {
  id: string;
  /** Who each run pays (a recurring batch: its file's name). */
  recipientName: string;
  /** As the prompt shows it; absent when there is no one number. */
  phone?: string;
  operator?: string;
  /** XAF per run. */
  amount: number;
  note: string | undefined;
  /** The plan in words ("every month on the 28th at 09:00"). */
  plan: string;
  /** The next runs in words ("Thu 24 Dec 2026, 09:00 UTC+1"), at most three. */
  nextRuns: string[];
  expiresAtMs: number;
}

export interface StepUpSteps {
  /** The item waiting for the caller's `action` with the PIN, or null. */
  item(
    user: WebAppUser,
    action: StepUpAction,
    id: string,
  ): Promise<{ payout: StepUpItem } | { batch: StepUpBatch } | { schedule: StepUpSchedule } | null>;
  pinStatus(user: WebAppUser): Promise<PinStatus>;
  /** `signedAtMs`: when the caller's init data was signed (the first PIN after a reset). */
  setPin(
    user: WebAppUser,
    pin: string,
    repeat: string,
    signedAtMs: number,
  ): Promise<
    | { outcome: "set" | "malformed" | "mismatch" | "already_set" | "stale" }
    | { outcome: "locked"; untilMs: number }
  >;
  /** Checks the PIN, then runs the same step as the chat button (`duplicateSeenAtMs`: Approve anyway). */
  act(
    user: WebAppUser,
    action: StepUpAction,
    payoutId: string,
    input: { pin: string; duplicateSeenAtMs?: number },
  ): Promise<StepUpConfirmOutcome>;
}

const SetBody = z.object({ pin: z.string().max(64), repeat: z.string().max(64) });
const ActBody = z.object({
  pin: z.string().max(64),
  duplicateSeenAtMs: z.number().int().nonnegative().optional(),
});
const PayoutId = /^[\w-]{4,40}$/;

/** A PIN's state for the page: never the hash, never the count of tries before a lock. */
function pinView(status: PinStatus) {
  return status.kind === "locked"
    ? { state: "locked", untilMs: status.untilMs }
    : { state: status.kind };
}

/** What a Confirm's outcome answers. */
const CONFIRMED_STATUS: Record<string, number> = {
  pending: 200,
  unknown: 200,
  rejected_by_api: 200,
  approval_requested: 200,
  done: 200,
  already: 409,
  no_runs: 409,
  too_new: 403,
  over_limit: 409,
  expired: 410,
  forbidden: 403,
  not_found: 404,
  step_up_required: 403,
  duplicate: 409,
  /** APPROVAL_RULES: a signature short of the rule was recorded; it waits on. */
  signed: 200,
  already_signed: 409,
};

/** The item's facts and where the caller's PIN stands. */
function itemRoute(steps: StepUpSteps, action: StepUpAction): WebAppRoute {
  return {
    method: "GET",
    path: `step-up/${action}/:id`,
    capability: action.endsWith("confirm") ? "pay" : "approve",
    async handle({ user, params }) {
      const id = params.id ?? "";
      const item = PayoutId.test(id) ? await steps.item(user, action, id) : null;
      if (item === null) return failure(404, "not_found");
      return { status: 200, json: { ...item, pin: pinView(await steps.pinStatus(user)) } };
    },
  };
}

/** The PIN, then the action; answers as the file's header says. */
function actRoute(steps: StepUpSteps, action: StepUpAction): WebAppRoute {
  return {
    method: "POST",
    path: `step-up/${action}/:id`,
    capability: action.endsWith("confirm") ? "pay" : "approve",
    async handle({ user, params, body }): Promise<WebAppReply> {
      const id = params.id ?? "";
      const parsed = ActBody.safeParse(body);
      if (!parsed.success) return failure(400, "malformed");
      if (!PayoutId.test(id)) return failure(404, "not_found");
      const { pin, duplicateSeenAtMs } = parsed.data;
      const input = duplicateSeenAtMs === undefined ? { pin } : { pin, duplicateSeenAtMs };
      const done = await steps.act(user, action, id, input);
      switch (done.outcome) {
        case "not_found":
          return failure(404, "not_found");
        case "pin":
          if (done.result === "wrong") {
            return { status: 422, json: { error: "wrong_pin", left: done.left } };
          }
          if (done.result === "locked") {
            return { status: 423, json: { error: "pin_locked", untilMs: done.untilMs } };
          }
          return done.result === "none" ? failure(409, "pin_not_set") : failure(400, "malformed");
        case "duplicate":
          return {
            status: 409,
            json: { error: "duplicate", duplicateSeenAtMs: done.duplicateSeenAtMs },
          };
        case "confirmed": {
          const status = CONFIRMED_STATUS[done.result] ?? 200;
          return status === 200
            ? { status, json: { outcome: done.result, state: done.state } }
            : { status, json: { error: done.result, state: done.state } };
        }
      }
    },
  };
}

/** The step-up's routes. */
export function stepUpRoutes(steps: StepUpSteps): WebAppRoute[] {
  return [
    ...STEP_UP_ACTIONS.map((action) => itemRoute(steps, action)),
    {
      method: "POST",
      path: "step-up/pin",
      capability: "pay",
      async handle({ user, signedAtMs, body }) {
        const parsed = SetBody.safeParse(body);
        if (!parsed.success) return failure(400, "malformed");
        const { pin, repeat } = parsed.data;
        const result = await steps.setPin(user, pin, repeat, signedAtMs);
        switch (result.outcome) {
          case "set":
            return { status: 201, json: { outcome: "set" } };
          case "locked":
            return { status: 423, json: { error: "pin_locked", untilMs: result.untilMs } };
          case "stale":
            return { status: 401, json: { error: "unauthorized", reason: "pin_stale" } };
          default:
            return failure(result.outcome === "already_set" ? 409 : 400, result.outcome);
        }
      },
    },
    ...STEP_UP_ACTIONS.map((action) => actRoute(steps, action)),
  ];
}
