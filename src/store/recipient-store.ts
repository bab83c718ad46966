/**
 * The saved recipients' storage contract (Redis: redis-recipients.ts; memory:
 * memory-recipients.ts; both held to test/contract/recipient-store.contract.ts).
 */
import type { ListedRecipient, Recipient, RecipientPending } from "../model/recipient.js";

/** What a change of an entry did; a refused change wrote nothing. */
export type RecipientWriteResult =
  | { outcome: "written" }
  /** The entry is not at the revision the change was made on: `current` is what is there. */
  | { outcome: "conflict"; current: Recipient | null }
  /** A new alias while `maxEntries` are kept. */
  | { outcome: "full" };

export interface RecipientStore {
  /** The entry under `key` (an alias key, model/recipient.ts `aliasKey`), or null. */
  get(key: string): Promise<Recipient | null>;
  /**
   * Every entry (at most `maxEntries`), with when its number was last paid. Entries that do
   * not read as recipients are left out (and logged).
   */
  list(): Promise<ListedRecipient[]>;
  /**
   * Stores `recipient` under `key` if the entry there is at revision `expectedRev` (0: no
   * entry), in one atomic step; `recipient.rev` must be `expectedRev + 1`. A new alias is
   * refused when `maxEntries` are kept.
   */
  put(key: string, recipient: Recipient, expectedRev: number): Promise<RecipientWriteResult>;
  /** Removes the entry under `key` if it is at revision `expectedRev`, in one atomic step. */
  remove(key: string, expectedRev: number): Promise<RecipientWriteResult>;
  /** How many entries are kept. */
  count(): Promise<number>;
  /** True when at least one alias names `phone`. */
  isSaved(phone: string): Promise<boolean>;
  /** Remembers that `phone` was paid at `atMs`, when it is saved (otherwise nothing). */
  markPaid(phone: string, atMs: number): Promise<void>;
  /** Keeps `pending` under `id` for `ttlMs`. */
  putPending(id: string, pending: RecipientPending, ttlMs: number): Promise<void>;
  /** The pending prompt or question under `id`, or null (gone, expired, not valid). */
  getPending(id: string): Promise<RecipientPending | null>;
  /** Takes the pending prompt under `id` away, once: only one caller gets it. */
  takePending(id: string): Promise<RecipientPending | null>;
}
