/**
 * The keys and arguments of a payout move (lua/payout-transition.lua describes them), built
 * from the move's event, patch and options: everything the script checks and writes in its
 * one atomic step; and its reply, read strictly.
 */
import {
  expiresInState,
  givesBack,
  PAYOUT_STATES,
  type PayoutEvent,
  type PayoutState,
  sourcesOf,
  TRACKED_STATES,
  targetOf,
} from "../../model/lifecycle.js";
import { noticeKey } from "../../model/notice.js";
import type { PayoutPatch } from "../../model/payout.js";
import { STATUS_GROUPS, type StatusGroup, statusGroupOf } from "../../model/search.js";
import { COUNTED_STATES, TOTALS_KEPT_MIN_MS } from "../../model/totals.js";
import { randomHex } from "../../random.js";
import { dayOf } from "../../time.js";
import { auditMinId, payoutDraftJson } from "../audit-codec.js";
import type { Keys } from "../keys.js";
import { encodeFields, noticesOfMove, SETTLED_NOTICE_PREFIX } from "../payout-codec.js";
import type { TransitionOptions } from "../types.js";
import { recipientKeys } from "./recipients.js";
import { SPENDING_KEPT_MS } from "./spending.js";

/** A boolean as the scripts take it. */
export function flag(value: boolean): string {
  return value ? "1" : "0";
}

/** Each state (JSON, as stored) → its status group. */
const GROUPS = Object.fromEntries(
  PAYOUT_STATES.map((state) => [JSON.stringify(state), statusGroupOf(state)]),
);

/**
 * What the scripts that move a payout's status group are told of the groups and their keys:
 * every state's and every group's, or with `states`, only those states' and their groups'.
 */
export function statusGroupArgs(k: Keys, states?: readonly PayoutState[]) {
  if (states === undefined) {
    return {
      groups: GROUPS,
      statusKeys: Object.fromEntries(STATUS_GROUPS.map((g) => [g, k.statusPayouts(g)])),
      userStatusPrefixes: Object.fromEntries(STATUS_GROUPS.map((g) => [g, k.userStatusPrefix(g)])),
    };
  }
  const groups: Record<string, StatusGroup> = {};
  const statusKeys: Partial<Record<StatusGroup, string>> = {};
  const userStatusPrefixes: Partial<Record<StatusGroup, string>> = {};
  for (const state of states) {
    const group = statusGroupOf(state);
    groups[JSON.stringify(state)] = group;
    statusKeys[group] = k.statusPayouts(group);
    userStatusPrefixes[group] = k.userStatusPrefix(group);
  }
  return { groups, statusKeys, userStatusPrefixes };
}

/**
 * The part of a move's JSON that is the same for every move of one store and event (key
 * prefixes, lifetimes, the status groups of the event's source and target states and their
 * keys), serialized once: `"name":value,...` without the braces. Only the groups a move can
 * leave or enter are named (the script reads a group only for the record's state once it is
 * one of the sources, and for the target): every move sent the twelve states' groups and the
 * six groups' keys, some 1 KB that Redis decoded on every move.
 */
const CONSTANTS = new WeakMap<Keys, Map<number, Map<PayoutEvent, string>>>();

function constantsJson(k: Keys, retentionMs: number, event: PayoutEvent): string {
  let byRetention = CONSTANTS.get(k);
  if (!byRetention) {
    byRetention = new Map();
    CONSTANTS.set(k, byRetention);
  }
  let byEvent = byRetention.get(retentionMs);
  if (!byEvent) {
    byEvent = new Map();
    byRetention.set(retentionMs, byEvent);
  }
  let json = byEvent.get(event);
  if (json === undefined) {
    json = JSON.stringify({
      retentionMs: String(retentionMs),
      paymentPrefix: k.paymentIndex(""),
      spendPrefix: k.spending(""),
      spendKeptMs: String(SPENDING_KEPT_MS),
      batchPrefix: k.batch(""),
      staffKey: k.staff(),
      grantedKey: k.staffGranted(),
      settledPrefix: SETTLED_NOTICE_PREFIX,
      trackedStates: TRACKED_STATES.map((state) => JSON.stringify(state)),
      sources: sourcesOf(event).map((state) => JSON.stringify(state)),
      ...statusGroupArgs(k, [...sourcesOf(event), targetOf(event)]),
      ...totalsKept(k, retentionMs),
    }).slice(1, -1);
    byEvent.set(event, json);
  }
  return json;
}

/** The keys every move names after its record's (outbox, audit, tracking, state sets). */
const MOVE_KEYS = new WeakMap<Keys, readonly string[]>();

function moveKeys(k: Keys): readonly string[] {
  let names = MOVE_KEYS.get(k);
  if (names === undefined) {
    names = [k.outbox(), k.auditLog(), k.tracking(), ...TRACKED_STATES.map((s) => k.stateSet(s))];
    MOVE_KEYS.set(k, names);
  }
  return names;
}

/** `fields` as one JSON object with the store's constant part (constantsJson) in it. */
function withConstants(
  k: Keys,
  retentionMs: number,
  event: PayoutEvent,
  fields: Record<string, unknown>,
): string {
  return `${JSON.stringify(fields).slice(0, -1)},${constantsJson(k, retentionMs, event)}}`;
}

/** Keys and arguments of one move (lua/payout-transition.lua describes them). */
export function transitionArgs(call: {
  keys: Keys;
  id: string;
  event: PayoutEvent;
  /** Checked already. */
  patch: PayoutPatch;
  options: TransitionOptions;
  nowMs: number;
  retentionMs: number;
  /** TIME_ZONE: the day a settled payout is counted on. */
  timeZone: string;
}): { keys: string[]; args: string[] } {
  const { keys: k, id, event, patch, options, nowMs, retentionMs } = call;
  const expect = options.expect;
  const target = targetOf(event);
  const claim = options.claimId;
  const reserve = options.reserve;
  const fields = {
    ...patch,
    state: target,
    updatedAtMs: nowMs,
    ...(claim === undefined ? {} : { claimId: claim }),
  };
  const notices = noticesOfMove(id, target, options.notices);
  const notePaid = target === "success" ? options.notePaid : undefined;
  const keys = [k.payout(id), ...moveKeys(k)];
  if (options.slot !== undefined) keys.push(options.slot.key);
  if (notePaid !== undefined) {
    const paidKeys = recipientKeys(k.prefix);
    keys.push(paidKeys.phones, paidKeys.paid);
  }
  const { signature } = options;
  return {
    keys,
    args: [
      withConstants(k, retentionMs, event, {
        id,
        target: JSON.stringify(target),
        claim: claim === undefined ? "" : JSON.stringify(claim),
        nowMs: String(nowMs),
        expires: flag(expiresInState(target)),
        auditMinId: auditMinId(nowMs, retentionMs),
        expectedInitiator:
          expect?.initiatorId === undefined ? "" : JSON.stringify(expect.initiatorId),
        notExpiredAt: optional(expect?.notExpiredAtMs),
        trackAt: optional(options.trackAtMs),
        untrack: flag(options.untrack === true),
        reserveDay: reserve?.day ?? "",
        payerCap: optional(reserve?.payerCapXaf),
        merchantCap: optional(reserve?.merchantCapXaf),
        givesBack: flag(givesBack(target)),
        amountBelow: optional(expect?.amountBelowXaf),
        reserveKind: reserve === undefined ? "" : JSON.stringify(reserve.kind),
        initiatorRoles:
          expect?.initiatorRoles === undefined ? "" : `,${expect.initiatorRoles.join(",")},`,
        deciderId: expect?.decider === undefined ? "" : String(expect.decider.userId),
        deciderRoles: expect?.decider === undefined ? "" : `,${expect.decider.roles.join(",")},`,
        noticeCount: String(notices.length),
        slotLimit: optional(options.slot?.limit),
        slotWindowMs: optional(options.slot?.windowMs),
        slotBackgroundLimit: optional(options.slot?.backgroundLimit),
        // Unique per grant, as the limiter's own members are.
        slotMember: options.slot === undefined ? "" : `${id}:${randomHex(8)}`,
        totalsDay: totalsDay(
          COUNTED_STATES.has(target) ? (patch.settledAtMs ?? nowMs) : undefined,
          call.timeZone,
        ),
        paidPhone: notePaid?.phone ?? "",
        paidAtMs: notePaid === undefined ? "" : String(Math.trunc(notePaid.atMs)),
        // An approval by signatures (TransitionOptions.signature), as the script takes it.
        sigNeeded: signature === undefined ? "" : String(signature.needed),
        signDraft:
          signature === undefined
            ? ""
            : payoutDraftJson(id, "sign", nowMs, options.actor, options.auditDetails),
        signNotices: (signature?.signedNotices ?? []).map(noticeKey),
        // A press counted in the move's step (TransitionOptions.press); '' all three: none.
        pressKey: options.press === undefined ? "" : k.throttle(options.press.name),
        pressLimit: optional(options.press?.limit),
        pressWindowMs: optional(options.press?.windowMs),
      }),
      patch.paymentId ?? "",
      payoutDraftJson(id, event, nowMs, options.actor, options.auditDetails),
      options.stampSentAtMs ? payoutDraftJson(id, "submit", nowMs, options.actor, undefined) : "",
      ...notices,
      ...encodeFields(fields),
    ],
  };
}

/**
 * What the scripts that may count a settled payout are told (lua/includes/totals.lua): the
 * day it is counted on (none when `atMs` is undefined), the totals' prefix and lifetime.
 */
export function totalsArgs(
  k: Keys,
  atMs: number | undefined,
  timeZone: string,
  retentionMs: number,
) {
  return { totalsDay: totalsDay(atMs, timeZone), ...totalsKept(k, retentionMs) };
}

/** The day a settled payout is counted on; "" when it is not counted (`atMs` undefined). */
function totalsDay(atMs: number | undefined, timeZone: string): string {
  return atMs === undefined ? "" : dayOf(atMs, timeZone);
}

/** Where the day totals are kept, and for how long. */
function totalsKept(k: Keys, retentionMs: number) {
  return {
    totalsPrefix: k.dayTotals(""),
    totalsKeptMs: String(Math.max(retentionMs, TOTALS_KEPT_MIN_MS)),
  };
}

/** An optional number as the scripts take it: "" when absent. */
function optional(value: number | null | undefined): string {
  return value === undefined || value === null ? "" : String(value);
}

const MOVE_STATUSES = [
  "unchanged",
  "wrong_state",
  "payment_taken",
  "not_initiator",
  "expired",
  "needs_approval",
  "batch_stopped",
  "initiator_not_allowed",
  "decider_not_allowed",
  "decider_too_new",
  "already_signed",
  "signed",
  "applied",
] as const;
const MOVE_STATUS_SET: ReadonlySet<string> = new Set(MOVE_STATUSES);

/** A reply of payout-transition.lua, read (readTransitionReply). */
export type TransitionReply =
  | { status: "not_found" | "corrupt" | "throttled"; fields: null; over: null; slot: undefined }
  | {
      status: (typeof MOVE_STATUSES)[number];
      fields: string[];
      over: null;
      slot: boolean | undefined;
    }
  | {
      status: "over_limit";
      fields: string[];
      over: { limit: "payer" | "merchant"; usedXaf: number };
      slot: undefined;
    };

/**
 * The replies of payout-transition.lua, read strictly: exactly one of these shapes, or an
 * error. Written out rather than a zod union (a move's reply is read on every move, and the
 * union tried its four shapes in turn); test/unit/store/redis/transition-reply.test.ts holds
 * it to the same shapes.
 *   {"not_found"|"corrupt"|"throttled"}
 *   {status, fields}              status: MOVE_STATUSES; fields: a string array
 *   {"applied", fields, 0|1}      1: the rate-limit slot was taken
 *   {"over_limit", fields, "payer"|"merchant", used}   used: an integer as a string
 */
export function readTransitionReply(reply: unknown): TransitionReply {
  if (Array.isArray(reply)) {
    const [status, fields] = reply;
    if (
      reply.length === 1 &&
      (status === "not_found" || status === "corrupt" || status === "throttled")
    ) {
      return { status, fields: null, over: null, slot: undefined };
    }
    if (reply.length >= 2 && isStringArray(fields)) {
      if (reply.length === 2 && typeof status === "string" && MOVE_STATUS_SET.has(status)) {
        const known = status as (typeof MOVE_STATUSES)[number];
        return { status: known, fields, over: null, slot: undefined };
      }
      const third = reply[2];
      if (reply.length === 3 && status === "applied" && (third === 0 || third === 1)) {
        return { status, fields, over: null, slot: third === 1 };
      }
      const used = reply[3];
      if (
        reply.length === 4 &&
        status === "over_limit" &&
        (third === "payer" || third === "merchant") &&
        typeof used === "string" &&
        /^-?\d+$/.test(used)
      ) {
        return { status, fields, over: { limit: third, usedXaf: Number(used) }, slot: undefined };
      }
    }
  }
  throw new Error(`payout-transition.lua: unexpected reply ${describeReply(reply)}`);
}

function isStringArray(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (typeof item !== "string") return false;
  return true;
}

/** The reply's shape for the error, not its values (a record's fields are not logged). */
function describeReply(reply: unknown): string {
  if (!Array.isArray(reply)) return typeof reply;
  const first = typeof reply[0] === "string" ? JSON.stringify(reply[0]) : typeof reply[0];
  return `[${first}, … ${reply.length} items]`;
}
