/** Saved recipients in process memory, for the demo without Redis (same rules as Redis). */
import {
  type ListedRecipient,
  MAX_RECIPIENTS,
  type Recipient,
  type RecipientPending,
  RecipientPendingSchema,
  RecipientSchema,
} from "../../model/recipient.js";
import type { RecipientStore, RecipientWriteResult } from "../recipient-store.js";
import { checkInput } from "../schemas.js";

export class MemoryRecipientStore implements RecipientStore {
  readonly #entries = new Map<string, Recipient>();
  readonly #phones = new Map<string, number>();
  readonly #paid = new Map<string, number>();
  readonly #pending = new Map<string, { pending: RecipientPending; expiresAtMs: number }>();
  readonly #now: () => number;
  readonly #maxEntries: number;

  constructor(now: () => number, maxEntries = MAX_RECIPIENTS) {
    this.#now = now;
    this.#maxEntries = maxEntries;
  }

  async get(key: string): Promise<Recipient | null> {
    const entry = this.#entries.get(key);
    return entry ? structuredClone(entry) : null;
  }

  async list(): Promise<ListedRecipient[]> {
    return [...this.#entries.values()].map((entry) => {
      const lastPaidAtMs = this.#paid.get(entry.phone);
      return lastPaidAtMs === undefined
        ? structuredClone(entry)
        : { ...structuredClone(entry), lastPaidAtMs };
    });
  }

  async put(key: string, recipient: Recipient, expectedRev: number): Promise<RecipientWriteResult> {
    const checked = checkInput(RecipientSchema, recipient, "recipient");
    if (checked.rev !== expectedRev + 1) throw new Error("a recipient's revision goes up by one");
    const current = this.#entries.get(key);
    if ((current?.rev ?? 0) !== expectedRev) return this.#conflict(current);
    if (!current && this.#entries.size >= this.#maxEntries) return { outcome: "full" };
    this.#entries.set(key, structuredClone(checked));
    if (current?.phone !== checked.phone) {
      this.#phones.set(checked.phone, (this.#phones.get(checked.phone) ?? 0) + 1);
      if (current) this.#forgetPhone(current.phone);
    }
    return { outcome: "written" };
  }

  async remove(key: string, expectedRev: number): Promise<RecipientWriteResult> {
    const current = this.#entries.get(key);
    if ((current?.rev ?? 0) !== expectedRev) return this.#conflict(current);
    if (current) {
      this.#entries.delete(key);
      this.#forgetPhone(current.phone);
    }
    return { outcome: "written" };
  }

  async count(): Promise<number> {
    return this.#entries.size;
  }

  async isSaved(phone: string): Promise<boolean> {
    return this.#phones.has(phone);
  }

  async markPaid(phone: string, atMs: number): Promise<void> {
    this.markPaidNow(phone, atMs);
  }

  /** markPaid at once, inside another store's step (a settling move, as its script does). */
  markPaidNow(phone: string, atMs: number): void {
    if (this.#phones.has(phone)) this.#paid.set(phone, Math.trunc(atMs));
  }

  async putPending(id: string, pending: RecipientPending, ttlMs: number): Promise<void> {
    const checked = checkInput(RecipientPendingSchema, pending, "pending recipient prompt");
    const expiresAtMs = this.#now() + Math.max(1, Math.ceil(ttlMs));
    this.#pending.set(id, { pending: structuredClone(checked), expiresAtMs });
  }

  async getPending(id: string): Promise<RecipientPending | null> {
    return this.#live(id);
  }

  async takePending(id: string): Promise<RecipientPending | null> {
    // Read and delete with no await between: two takers never both get it.
    const pending = this.#live(id);
    this.#pending.delete(id);
    return pending;
  }

  #live(id: string): RecipientPending | null {
    const entry = this.#pending.get(id);
    if (!entry) return null;
    if (entry.expiresAtMs <= this.#now()) {
      this.#pending.delete(id);
      return null;
    }
    return structuredClone(entry.pending);
  }

  #conflict(current: Recipient | undefined): RecipientWriteResult {
    return { outcome: "conflict", current: current ? structuredClone(current) : null };
  }

  #forgetPhone(phone: string): void {
    const left = (this.#phones.get(phone) ?? 0) - 1;
    if (left > 0) {
      this.#phones.set(phone, left);
      return;
    }
    this.#phones.delete(phone);
    this.#paid.delete(phone);
  }
}
