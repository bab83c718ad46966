/**
 * Every Redis key the bot uses, in one place, under one configurable prefix (e.g.
 * `payout-bot:`), so deployments can share a Redis and tests can drop their own keys.
 *
 * Layout (p = prefix):
 *   p payout:{id}              HASH   one payout; each field one property, JSON-encoded
 *   p payment:{paymentId}      STRING payout id (findByPaymentId); same lifetime as the payout
 *   p user:{userId}:payouts    ZSET   payout ids by createdAtMs (history per initiator)
 *   p payouts                  ZSET   payout ids by createdAtMs (everyone's history)
 *   p phone:{phone}:payouts    ZSET   payout ids by createdAtMs (the duplicate warning)
 *   p state:{state}            SET    payout ids now in an in-flight state
 *   p status:{group}           ZSET   payout ids by createdAtMs, now in that status group
 *                                     (model/search.ts), moved with the state
 *   p status:{group}:user:{userId}  ZSET  the same, per initiator
 *   p word:{word}              ZSET   payout ids by createdAtMs whose name, note or alias
 *                                     holds that folded word (model/search.ts)
 *   p words                    ZSET   every indexed word, score 0 (read by prefix, BYLEX)
 *   p words:seen               ZSET   every indexed word by its newest payout's createdAtMs
 *                                     (words gone past the retention leave `words`)
 *   p search:scratch:{n}       ZSET   a search script's scratch, deleted before it returns
 *   p search:indexed           STRING set once payouts stored before the search indexes
 *                                     were written into them (payout-search.ts)
 *   p dialog:{chatId}          STRING DialogState JSON, expires with the dialog
 *   p prompt:{chatId}:{userId} STRING the user's latest prompt (payout id), expires with it
 *   p spent:{day}              HASH   merchant | user:{id} → XAF counted against the limits
 *   p cards:{payoutId}         SET    chatId:messageId of each approval card sent about it
 *   p card:{chatId}:{msgId}    STRING the payout id an approval card is about
 *   p locale:{userId}          STRING "en" | "fr"
 *   p staff                    HASH   userId → role
 *   p staff-granted            HASH   userId → when the current role was granted (ms)
 *   p profile                  HASH   userId → UserProfile JSON (a staff member's name)
 *   p tracking                 ZSET   payout ids by next poll time
 *   p outbox                   ZSET   payout ids whose final status the payer must be told
 *   p audit-log                STREAM audit entries (field e: JSON; from, to, amount, phone),
 *                                     trimmed to the retention
 *   p digest:{day}             STRING set when that day's digest was queued, 3 days expiry
 *   p availability             HASH   "{operator}:{operation}" → OperationState JSON,
 *                                     "{operator}:{operation}:up" → "1" | "0"
 *   p batch:{id}               STRING one batch, JSON (moved by one script with its notices
 *                                     and audit entry); kept for the retention once it ends
 *   p batch:{id}:rows          LIST   the batch's rows, JSON, in spreadsheet order
 *   p user:{userId}:batches    ZSET   batch ids by createdAtMs (per initiator)
 *   p batches                  ZSET   batch ids by createdAtMs (everyone's)
 *   p batches:active           SET    batches the worker has something to do for
 *   p schedule:{id}            STRING one schedule, JSON (redis/schedules.ts: its lifetime)
 *   p schedule:{id}:runs       HASH   run key (YYYYMMDDHHMM) → ScheduleRun JSON
 *   p schedule:{id}:rows       STRING a scheduled batch's rows, one JSON array
 *   p schedules                ZSET   schedule ids by createdAtMs
 *   p schedules:due            ZSET   active schedules by their next run's time
 *   p schedules:held           SET    `{scheduleId}:{runKey}` of every run held
 *   p schedules:sending        ZSET   `{scheduleId}:{runKey}` of every run sending, by when
 *   p lease:{name}             STRING owner, with a TTL
 *   p throttle:{name}          STRING actions counted in the window, expiring with it
 *   p pin:{userId}             HASH   hash (argon2id, PHC string), setAtMs, tries, window,
 *                                     unseenWrong, lastWrongAtMs, lockedUntilMs, resetAtMs:
 *                                     one staff member's step-up PIN (lua/pin-set.lua)
 *   p ratelimit:{name}         (owned by the rate limiter)
 *   p events:{part}            the signed events' queue (redis/events.ts lists its parts)
 *   p recipients…              saved recipients (redis/recipients.ts lists its keys)
 */
import type { PayoutState } from "../model/lifecycle.js";
import type { StatusGroup } from "../model/search.js";

export interface Keys {
  readonly prefix: string;
  payout(id: string): string;
  paymentIndex(paymentId: string): string;
  userPayouts(userId: number): string;
  allPayouts(): string;
  phonePayouts(phone: string): string;
  stateSet(state: PayoutState): string;
  /** A status group's index; `userId` undefined: everyone's. */
  statusPayouts(status: StatusGroup, userId?: number): string;
  /** What an initiator's id follows in their index of a status group. */
  userStatusPrefix(status: StatusGroup): string;
  /** The index of a folded word (`word("")` is the prefix of them all). */
  searchWord(word: string): string;
  searchVocabulary(): string;
  searchVocabularySeen(): string;
  /** The search scripts' scratch keys (`searchScratch("")` is their prefix). */
  searchScratch(n: string): string;
  searchIndexed(): string;
  dialog(chatId: number): string;
  prompt(chatId: number, userId: number): string;
  /** The spending hash of `day` (YYYY-MM-DD); `spending("")` is the prefix of them all. */
  spending(day: string): string;
  /**
   * The settled totals of `day` (YYYY-MM-DD in TIME_ZONE; model/totals.ts), everyone's or
   * `userId`'s; `dayTotals("")` is the prefix of them all.
   */
  dayTotals(day: string, userId?: number): string;
  approvalCards(payoutId: string): string;
  approvalCard(chatId: number, messageId: number): string;
  locale(userId: number): string;
  staff(): string;
  /** userId → JSON StaffOrigin: where each role (or removal) came from. */
  staffOrigins(): string;
  /** userId → when the member's current role was granted (ms); absent: before this was kept. */
  staffGranted(): string;
  /** userId → JSON UserProfile: how Telegram names each staff member. */
  profiles(): string;
  tracking(): string;
  outbox(): string;
  auditLog(): string;
  digestMark(day: string): string;
  availability(): string;
  batch(id: string): string;
  batchRows(id: string): string;
  userBatches(userId: number): string;
  allBatches(): string;
  activeBatches(): string;
  schedule(id: string): string;
  scheduleRuns(id: string): string;
  scheduleRows(id: string): string;
  allSchedules(): string;
  schedulesDue(): string;
  schedulesHeld(): string;
  schedulesSending(): string;
  lease(name: string): string;
  throttle(name: string): string;
  pin(userId: number): string;
  rateLimit(name: string): string;
  /** A part of the signed events' queue (store/redis/events.ts). */
  events(part: string): string;
}

/** Key builders under `prefix` (used verbatim: include the trailing separator, e.g. `payout-bot:`). */
export function keys(prefix: string): Keys {
  return {
    prefix,
    payout: (id) => `${prefix}payout:${id}`,
    paymentIndex: (paymentId) => `${prefix}payment:${paymentId}`,
    userPayouts: (userId) => `${prefix}user:${userId}:payouts`,
    allPayouts: () => `${prefix}payouts`,
    phonePayouts: (phone) => `${prefix}phone:${phone}:payouts`,
    stateSet: (state) => `${prefix}state:${state}`,
    statusPayouts: (status, userId) =>
      userId === undefined
        ? `${prefix}status:${status}`
        : `${prefix}status:${status}:user:${userId}`,
    userStatusPrefix: (status) => `${prefix}status:${status}:user:`,
    searchWord: (word) => `${prefix}word:${word}`,
    searchVocabulary: () => `${prefix}words`,
    searchVocabularySeen: () => `${prefix}words:seen`,
    searchScratch: (n) => `${prefix}search:scratch:${n}`,
    searchIndexed: () => `${prefix}search:indexed`,
    dialog: (chatId) => `${prefix}dialog:${chatId}`,
    prompt: (chatId, userId) => `${prefix}prompt:${chatId}:${userId}`,
    spending: (day) => `${prefix}spent:${day}`,
    dayTotals: (day, userId) =>
      userId === undefined ? `${prefix}totals:${day}` : `${prefix}totals:${day}:user:${userId}`,
    approvalCards: (payoutId) => `${prefix}cards:${payoutId}`,
    approvalCard: (chatId, messageId) => `${prefix}card:${chatId}:${messageId}`,
    locale: (userId) => `${prefix}locale:${userId}`,
    staff: () => `${prefix}staff`,
    staffOrigins: () => `${prefix}staff-origin`,
    staffGranted: () => `${prefix}staff-granted`,
    profiles: () => `${prefix}profile`,
    tracking: () => `${prefix}tracking`,
    outbox: () => `${prefix}outbox`,
    auditLog: () => `${prefix}audit-log`,
    digestMark: (day) => `${prefix}digest:${day}`,
    availability: () => `${prefix}availability`,
    batch: (id) => `${prefix}batch:${id}`,
    batchRows: (id) => `${prefix}batch:${id}:rows`,
    userBatches: (userId) => `${prefix}user:${userId}:batches`,
    allBatches: () => `${prefix}batches`,
    activeBatches: () => `${prefix}batches:active`,
    schedule: (id) => `${prefix}schedule:${id}`,
    scheduleRuns: (id) => `${prefix}schedule:${id}:runs`,
    scheduleRows: (id) => `${prefix}schedule:${id}:rows`,
    allSchedules: () => `${prefix}schedules`,
    schedulesDue: () => `${prefix}schedules:due`,
    schedulesHeld: () => `${prefix}schedules:held`,
    schedulesSending: () => `${prefix}schedules:sending`,
    lease: (name) => `${prefix}lease:${name}`,
    throttle: (name) => `${prefix}throttle:${name}`,
    pin: (userId) => `${prefix}pin:${userId}`,
    rateLimit: (name) => `${prefix}ratelimit:${name}`,
    events: (part) => `${prefix}events:${part}`,
  };
}

/** The key prefix of one merchant: every key of it carries the hash tag {m:<id>}, so it sits on one cluster slot. */
export function merchantKeyPrefix(prefix: string, merchantId: string): string {
  return `${prefix}{m:${merchantId}}:`;
}
export const DEFAULT_MERCHANT_ID = "default";

/**
 * The queues a wake names (lua/includes/wake.lua): each the name of a key after a merchant's
 * key prefix, whose writes some loop waits for.
 */
export const WAKE_QUEUES = [
  "outbox",
  "tracking",
  "batches:active",
  "schedules:due",
  "schedules:sending",
  "state:awaiting_approval",
  "state:submitting",
] as const;
export type WakeQueue = (typeof WAKE_QUEUES)[number];

/**
 * The wake channel (pub/sub, a global name: `<prefix>wake`) of the merchant keyed under
 * `keyPrefix`, its `{m:<id>}:` tag left out: every merchant of a bot shares it. Lua finds the
 * same name from a queue's key (lua/includes/wake.lua).
 */
export function wakeChannel(keyPrefix: string): string {
  return `${keyPrefix.replace(/\{m:[^}]*\}:$/, "")}wake`;
}

/**
 * The few keys that belong to no merchant (MERCHANTS_FILE): which merchant each person's
 * commands act on, and which merchant sent a message with buttons (so a press on it acts
 * there, whichever merchant the person switched to since). Under the bare prefix, never
 * inside a merchant's hash tag.
 */
export const globalKeys = (prefix: string) => ({
  /** STRING: the merchant id a user's commands act on. */
  currentMerchant: (userId: number) => `${prefix}current-merchant:${userId}`,
  /** STRING: the merchant id that sent this message (one with inline buttons). */
  messageMerchant: (chatId: number, messageId: number) =>
    `${prefix}message-merchant:${chatId}:${messageId}`,
  /**
   * SET: the merchants a user may be staff of (a superset: each merchant's own staff store
   * decides); only those are asked when routing their updates (merchant-directory.ts).
   */
  staffOf: (userId: number) => `${prefix}staff-of:${userId}`,
  /** The Telegram poller's lease: one consumer of updates for every merchant. */
  pollerLease: () => `${prefix}lease:telegram-poller`,
});
