/**
 * The payout store's interface and the types of its answers (re-exported by types.ts with
 * the other storage interfaces).
 */
import type { Actor, AuditDetails } from "../model/audit.js";
import type { PayoutEvent, PayoutState, TrackedState } from "../model/lifecycle.js";
import type { Notice } from "../model/notice.js";
import type { Payout, PayoutKind, PayoutPatch } from "../model/payout.js";
import type { Role } from "../model/roles.js";
import type { StatusGroup } from "../model/search.js";
import type { DayTotals } from "../model/totals.js";
import type { SharedSlot } from "../payments/rate-limiter.js";
import type { OldestInStateOptions } from "./oldest-in-state.js";

export type TransitionResult =
  | {
      ok: true;
      payout: Payout;
      /** True when this call (not an earlier one) made the move. */
      applied: boolean;
      /**
       * False only when a durable write was asked for and the store could not confirm it
       * was persisted in time (see store/redis/durability.ts); the move itself was made.
       */
      durable: boolean;
      /**
       * With `slot`: whether this call took one (a resend that found its move made takes
       * none, and says undefined); without it, undefined.
       */
      slotTaken?: boolean;
      /**
       * With `signature`: true when this call recorded a signature that is not the last one
       * the rule needs; the payout was not moved (`applied` false) and keeps waiting.
       */
      signed?: boolean;
    }
  /** With `signature`: the decider has already signed this payout; nothing was changed. */
  | { ok: false; reason: "already_signed"; payout: Payout }
  | { ok: false; reason: "not_found" }
  /** With `press`: the press is over its limit; nothing was read or changed. */
  | { ok: false; reason: "throttled" }
  | { ok: false; reason: "wrong_state"; payout: Payout }
  /** The patch's paymentId already belongs to another payout; nothing was changed. */
  | { ok: false; reason: "payment_taken"; payout: Payout }
  /**
   * A precondition of `expect` does not hold (another initiator; past its expiry; an amount
   * that needs a second person); nothing was changed.
   */
  | { ok: false; reason: "not_initiator" | "expired" | "needs_approval"; payout: Payout }
  /**
   * A claim (a move to `submitting`) of a batch's row whose batch no longer runs (Stop was
   * pressed, or it is gone): checked in the claim's own atomic step; nothing was changed.
   */
  | { ok: false; reason: "batch_stopped"; payout: Payout }
  /**
   * Checked in the same atomic step against the staff record now (`expect.initiatorRoles`,
   * `expect.decider`): its initiator no longer has a role that may pay; the person deciding
   * has no role that may decide; or got it after the payout was asked for. Nothing changed.
   */
  | {
      ok: false;
      reason: "initiator_not_allowed" | "decider_not_allowed" | "decider_too_new";
      payout: Payout;
    }
  /**
   * The move's reservation would take its initiator (`payer`) or everyone (`merchant`)
   * over the day's cap, `usedXaf` being what that one had spent; nothing was changed.
   */
  | {
      ok: false;
      reason: "over_limit";
      payout: Payout;
      limit: "payer" | "merchant";
      usedXaf: number;
    };

/** What a creation replaced: its initiator's open prompt in the chat, and its state then. */
export interface Created {
  /** Null: there was none. `state` null: its record is gone. */
  replaced: { id: string; state: PayoutState | null } | null;
}

/** A page of history: `userId` undefined means everyone's. */
/** The duplicate rule's question (PayoutStore.latestRepeat). */
export interface RepeatQuery {
  phone: string;
  amount: number;
  kind: PayoutKind;
  sinceMs: number;
  /** How many of the newest payouts to the number are looked at. */
  lookback: number;
  excludedStates: readonly PayoutState[];
  skipId?: string | undefined;
  skipIdPrefix?: string | undefined;
}

export interface PayoutListOptions {
  userId?: number;
  offset: number;
  limit: number;
}

/** A search by words (PayoutStore.findByWords): `words` as `wordsOf` gives them. */
export interface WordQuery {
  words: readonly string[];
  /** Created from `fromMs` to `toMs`, both included. */
  fromMs: number;
  toMs: number;
  /** Payouts read at most: the newest that match, after the first `offset` (default 0). */
  limit: number;
  offset?: number;
}

/**
 * What a search by words found, newest first. `complete`: every payout of the period that
 * matches (from `offset` on) is in `items`; false when more than `limit` might, and only the
 * newest were read. `exact`: every word looked for was answered by the index, so `total`
 * counts the period's matches exactly (else it counts those of the words it answered, and
 * `items` holds only the matches among the payouts read: page with offset 0 then).
 * `too_broad`: every word looked for begins too many different words for the index to
 * answer (one letter, say); nothing was read.
 */
export type WordMatches =
  | { outcome: "found"; items: Payout[]; complete: boolean; exact: boolean; total: number }
  | { outcome: "too_broad" };

/** A page of the payouts in one status group (PayoutStore.listByStatus). */
export interface StatusListOptions {
  /** Undefined: everyone's. */
  userId?: number;
  status: StatusGroup;
  /** Created from `fromMs` to `toMs`, both included. */
  fromMs: number;
  toMs: number;
  offset: number;
  limit: number;
}

/** Where a stretch of payouts by creation time starts and ends (PayoutStore.listCreated). */
export interface CreatedPageOptions {
  fromMs: number;
  toMs: number;
  limit: number;
  /** The `next` of the page before. */
  after?: string;
}

/** A stretch of payouts by creation time, oldest first; `next` continues it (absent at the end). */
/** Where a page of the payouts in a state starts, and about how many it holds. */
export interface StatePageOptions {
  limit: number;
  /** The `next` of the page before. */
  after?: string;
}

export interface CreatedPage {
  items: Payout[];
  next?: string;
}

/**
 * The last check before sending: still ours to send, or moved on (then nothing may leave).
 * `durable: false`: the check and the claim before it are not known to be persisted.
 */
export type MarkSendingResult =
  | { ok: true; sentAtMs: number; durable: boolean }
  | { ok: false; payout: Payout | null };

export interface DurableOption {
  /**
   * Wait until the write is persisted (a replica or the AOF has it) before answering, as
   * the store's durability plan allows; the answer says whether that was confirmed.
   */
  durable?: boolean;
}

/** A move's reservation against the day's spending limits (TransitionOptions.reserve). */
export interface Reservation {
  /** Only a payout of this kind reserves; another kind moves without counting. */
  kind: PayoutKind;
  /** The calendar day counted against: YYYY-MM-DD in the merchant's time zone. */
  day: string;
  /** The most one initiator may spend that day, in XAF; null: no cap (still counted). */
  payerCapXaf: number | null;
  /** The most everyone together may spend that day, in XAF; null: no cap (still counted). */
  merchantCapXaf: number | null;
}

export interface TransitionOptions extends DurableOption {
  claimId?: string;
  /** Queued in the outbox in the same atomic step as the move, and only if it is made. */
  notices?: readonly Notice[];
  /**
   * Who made the move (default: the bot itself). Every move that is made is written to the
   * audit log in the same atomic step, with this actor, the states before and after, the
   * amount and the masked number.
   */
  actor?: Actor;
  /** Facts for the audit entry of the move (a payment id, a reason). */
  auditDetails?: AuditDetails;
  /**
   * Checked in the same atomic step, before anything is written: the payout was started by
   * this user (else `not_initiator`), has not expired at this time (else `expired`), and its
   * amount is under this (else `needs_approval`: APPROVAL_THRESHOLD_XAF).
   */
  expect?: {
    initiatorId?: number;
    notExpiredAtMs?: number;
    amountBelowXaf?: number;
    /** The initiator is on staff now in one of these roles (else `initiator_not_allowed`). */
    initiatorRoles?: readonly Role[];
    /**
     * `userId` is on staff now in one of `roles` (else `decider_not_allowed`), granted at
     * or before the payout was asked for (`createdAtMs`; else `decider_too_new`). A grant
     * time not kept (granted before grant times were) counts as long ago.
     */
    decider?: { userId: number; roles: readonly Role[] };
  };
  /**
   * A button press counted first, in the same atomic step, as ThrottleStore.take counts
   * `name` (the same counter): over `limit` in its window nothing else is done (`throttled`).
   * A resend of a claim this call made (same `claimId`, found made) is not counted again.
   */
  press?: { name: string; limit: number; windowMs: number };
  /**
   * Stamps `sentAtMs` with the store's clock, and audits the submission, in the same step:
   * the move is the last check before a payment request that leaves right after it.
   */
  stampSentAtMs?: boolean;
  /** Schedules the payout's first status poll at this time, in the same step. */
  trackAtMs?: number;
  /**
   * Takes the payout off the status-poll schedule in the same step, when the move is made
   * (a settlement: nothing is left to poll). A move refused leaves the schedule as it was.
   */
  untrack?: boolean;
  /**
   * Counts the payout's amount against its initiator's and everyone's spending of
   * `reserve.day`, in the same atomic step as the move, and records the day on the payout
   * (`limitDay`). A payout that already holds its amount on another day (asked for approval
   * yesterday, approved today) has that hold moved: checked against `reserve.day` and given
   * back on the old day in the same step; one held on `reserve.day` already is not counted
   * twice. When a cap would be passed nothing is done: `over_limit`. Whatever the
   * options, a move into a state that gives back (lifecycle `givesBack`) takes the amount
   * of a payout with a `limitDay` off that day again, in the same step.
   */
  reserve?: Reservation;
  /**
   * Takes a rate-limit slot of this shared limit in the same atomic step, only when the move
   * is made: a move refused (or a resend finding its move made) takes none. The result says
   * whether it was granted (`slotTaken`); a limit that is full changes nothing else.
   */
  slot?: SharedSlot;
  /**
   * When the move is made and lands in `success`: the number's last-paid time in the
   * address book becomes `atMs` if the number is saved there (RecipientStore.markPaid), in
   * the same step; a number not saved is left unsaved. A settlement's note, without a round
   * trip of its own.
   */
  notePaid?: { phone: string; atMs: number };
  /**
   * An approval by signatures (with `expect.decider`, whose roles are the band's): in the
   * same step, the earlier signatures (`Payout.signatures`) whose signer is no longer on
   * staff in one of those roles, or got it after the payout was asked for, are dropped;
   * the decider already among the rest is `already_signed`; with the decider's signature
   * still under `needed`, it is recorded (audited as `sign`, `signedNotices` queued) and the
   * payout is not moved (`signed`); else the move is made with every signature kept.
   */
  signature?: { needed: number; signedNotices?: readonly Notice[] };
}

export interface PayoutStore {
  /**
   * Stores a new payout (state `awaiting_confirmation`), indexed under its initiator and
   * its number, and audits it (`prompt`) in the same atomic step. It becomes its
   * initiator's open prompt in its chat (for as long as an unconfirmed prompt is kept);
   * the answer names the one it replaced there, with that one's state then.
   */
  create(payout: Payout, options?: { actor?: Actor }): Promise<Created>;
  /** The latest prompt of `userId` in `chatId` (it may have moved on since), or null. */
  openPrompt(chatId: number, userId: number): Promise<string | null>;
  get(id: string): Promise<Payout | null>;
  /**
   * The atomic compare-and-set of the lifecycle: applies `event` only if the current
   * state allows it (lifecycle.ts), merging `patch` and setting `updatedAtMs`.
   *
   * With `claimId`, the call is idempotent for that claimant: if the payout is already in
   * the event's target state with the same `claimId`, the result is `ok: true,
   * applied: false`. So a command that ioredis resends after a reconnect finds its own
   * claim instead of reporting a conflict and stranding the payout.
   *
   * Moving into a final state (no way out) sets the record's expiry to the retention;
   * while in flight it never expires. `paymentId` in the patch indexes the payout for
   * `findByPaymentId`. A move into `success | failed | canceled` also queues the payer's
   * notice (`outbox`) in the same atomic step, so it cannot be lost between the two, and so
   * do the `notices` of the options.
   */
  transition(
    id: string,
    event: PayoutEvent,
    patch?: PayoutPatch,
    options?: TransitionOptions,
  ): Promise<TransitionResult>;
  /**
   * Atomically: if the payout is still `submitting` under `claimId`, stamps `sentAtMs` with
   * the store's clock and answers ok; otherwise changes nothing. Called right before a
   * payment request leaves: a payout moved on (e.g. marked unknown) is never sent.
   */
  markSending(
    id: string,
    claimId: string,
    options?: DurableOption & { actor?: Actor },
  ): Promise<MarkSendingResult>;
  /** Sets fields without a state change (bookkeeping such as `messageId`, `notifiedAtMs`). */
  update(id: string, patch: PayoutPatch): Promise<Payout | null>;
  findByPaymentId(paymentId: string): Promise<Payout | null>;
  /**
   * Payouts to `phone` created at `sinceMs` or later (within the retention), newest first,
   * `limit` of them from `offset`: what the duplicate warning looks at.
   */
  listByPhone(
    phone: string,
    page: { sinceMs: number; offset: number; limit: number },
  ): Promise<Payout[]>;
  /**
   * The newest payout to `query.phone` created at `sinceMs` or later (within the
   * retention), among the newest `lookback` to that number, of `amount` and `kind`, whose
   * state is not one of `excludedStates`, that is not `skipId` and whose id does not begin
   * with `skipIdPrefix`: the duplicate rule's question, answered in one step.
   */
  latestRepeat(query: RepeatQuery): Promise<Payout | null>;
  /** Newest first. `userId` undefined: everyone's. Records that expired are skipped. */
  list(options: PayoutListOptions): Promise<{ items: Payout[]; total: number }>;
  /**
   * The payouts created in the period whose words (`searchWordsOf`: name, note, alias) each
   * begin with one of `query.words`, newest first, read from an index of words written with
   * the payout (model/search.ts).
   */
  findByWords(query: WordQuery): Promise<WordMatches>;
  /**
   * A page of the payouts now in a status group (`statusGroupOf` their state), of one
   * initiator or everyone's, created in the period, newest first; `total` counts the
   * period's. Read from an index moved in the same atomic step as the state.
   */
  listByStatus(options: StatusListOptions): Promise<{ items: Payout[]; total: number }>;
  /**
   * Oldest first: up to `limit` payouts created from `fromMs` to `toMs` (both included),
   * after the page that gave `after` as its `next`. Each call reads one page of the
   * creation index and nothing more, so exports and the digest go through any number of
   * payouts page by page. Records that expired are skipped: a page may hold fewer than
   * `limit` and still have a `next`.
   */
  listCreated(options: CreatedPageOptions): Promise<CreatedPage>;
  /** Payouts now in `state` (used for `unknown`, and to resume tracking `pending`). */
  listInState(state: TrackedState): Promise<Payout[]>;
  /**
   * One page of the payouts now in `state`: about `limit` of them, from where the page
   * that gave `after` as its `next` left off (the first page without it); no `next` on
   * the last page. Each call reads one page and nothing more, so lists of thousands of
   * pending payouts are never held whole (`payoutsInState` walks them). As Redis's SSCAN,
   * a payout that stays in the state the whole walk is on some page, and may be on two
   * (count them by id); one that moves in or out meanwhile may be missed.
   */
  pageInState(state: TrackedState, options: StatePageOptions): Promise<CreatedPage>;
  /** Ids of the payouts now in `state`, without reading them (resuming 10,000 pending ones). */
  idsInState(state: TrackedState): Promise<string[]>;
  /**
   * How many payouts are now in each tracked state, read from the state sets' sizes (one
   * round trip, nothing read per payout): what the metrics' gauges show at every scrape.
   */
  countInStates(): Promise<Map<TrackedState, number>>;
  /**
   * How many payouts are now in `state` (filtered as `options` say) and the `limit` oldest
   * of them by creation, oldest first: only those few records are read whole.
   */
  oldestInState(
    state: TrackedState,
    options: OldestInStateOptions,
  ): Promise<{ count: number; items: Payout[] }>;
  /**
   * Each day's settled totals (model/totals.ts), in the order of `days` (YYYY-MM-DD in the
   * store's TIME_ZONE): everyone's, or those of `userId`'s payouts. Kept by the creations and
   * moves into a counted final state, in the same atomic step; a day without any is `{}`.
   */
  settledTotals(days: readonly string[], userId?: number): Promise<DayTotals[]>;
}

/** Every payout now in `state`, page by page (`PayoutStore.pageInState`): each one once. */
export async function* payoutsInState(
  store: Pick<PayoutStore, "pageInState">,
  state: TrackedState,
  pageSize: number,
): AsyncGenerator<Payout[]> {
  // Only ids are remembered between pages, to drop the repeats SSCAN may give.
  const seen = new Set<string>();
  let after: string | undefined;
  do {
    const page = await store.pageInState(state, { limit: pageSize, after });
    const fresh = page.items.filter((payout) => !seen.has(payout.id));
    for (const payout of fresh) seen.add(payout.id);
    if (fresh.length > 0) yield fresh;
    after = page.next;
  } while (after !== undefined);
}
