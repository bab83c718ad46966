/**
 * Saved recipients in Redis. Layout (p = prefix):
 *   p recipients              HASH   alias key → Recipient JSON (at most MAX_RECIPIENTS)
 *   p recipients:phones       HASH   phone → how many aliases name it
 *   p recipients:paid         HASH   phone → when it was last paid (ms), for saved numbers
 *   p recipients:pending:{id} STRING a /save prompt or a question for an alias, JSON, with its TTL
 * Changes of an entry go through one compare-and-set script (redis/lua/recipient-write.lua),
 * so two people saving or forgetting the same alias at once cannot overwrite each other.
 */
import { z } from "zod";
import { type Logger, silentLogger } from "../../logger.js";
import {
  type ListedRecipient,
  MAX_RECIPIENTS,
  type Recipient,
  type RecipientPending,
  RecipientPendingSchema,
  RecipientSchema,
} from "../../model/recipient.js";
import type { RecipientStore, RecipientWriteResult } from "../recipient-store.js";
import { checkInput, parseJsonOrUndefined } from "../schemas.js";
import type { RedisClient } from "./connection.js";
import { runScript, SCRIPTS } from "./scripts.js";

const WriteReplySchema = z.union([
  z.tuple([z.literal("written")]),
  z.tuple([z.literal("full")]),
  z.tuple([z.literal("conflict"), z.string()]),
]);

export interface RedisRecipientKeys {
  recipients: string;
  phones: string;
  paid: string;
  pending: (id: string) => string;
}

/** The keys under `prefix` (e.g. `payout-bot:`). */
export function recipientKeys(prefix: string): RedisRecipientKeys {
  return {
    recipients: `${prefix}recipients`,
    phones: `${prefix}recipients:phones`,
    paid: `${prefix}recipients:paid`,
    pending: (id) => `${prefix}recipients:pending:${id}`,
  };
}

export class RedisRecipientStore implements RecipientStore {
  readonly #redis: RedisClient;
  readonly #keys: RedisRecipientKeys;
  readonly #logger: Logger;
  readonly #maxEntries: number;

  constructor(
    redis: RedisClient,
    prefix: string,
    options: { logger?: Logger; maxEntries?: number } = {},
  ) {
    this.#redis = redis;
    this.#keys = recipientKeys(prefix);
    this.#logger = options.logger ?? silentLogger;
    this.#maxEntries = options.maxEntries ?? MAX_RECIPIENTS;
  }

  async get(key: string): Promise<Recipient | null> {
    const text = await this.#redis.hget(this.#keys.recipients, key);
    return text === null ? null : this.#decode(key, text);
  }

  async list(): Promise<ListedRecipient[]> {
    const [entries, paid] = await Promise.all([
      this.#redis.hgetall(this.#keys.recipients),
      this.#redis.hgetall(this.#keys.paid),
    ]);
    const listed: ListedRecipient[] = [];
    for (const [key, text] of Object.entries(entries)) {
      const recipient = this.#decode(key, text);
      if (!recipient) continue;
      const lastPaidAtMs = Number(paid[recipient.phone]);
      listed.push(
        Number.isSafeInteger(lastPaidAtMs) ? { ...recipient, lastPaidAtMs } : { ...recipient },
      );
    }
    return listed;
  }

  async put(key: string, recipient: Recipient, expectedRev: number): Promise<RecipientWriteResult> {
    const checked = checkInput(RecipientSchema, recipient, "recipient");
    if (checked.rev !== expectedRev + 1) throw new Error("a recipient's revision goes up by one");
    return this.#write(key, expectedRev, JSON.stringify(checked), checked.phone);
  }

  async remove(key: string, expectedRev: number): Promise<RecipientWriteResult> {
    return this.#write(key, expectedRev, "", "");
  }

  count(): Promise<number> {
    return this.#redis.hlen(this.#keys.recipients);
  }

  async isSaved(phone: string): Promise<boolean> {
    return (await this.#redis.hexists(this.#keys.phones, phone)) === 1;
  }

  async markPaid(phone: string, atMs: number): Promise<void> {
    // A forget between these two leaves one stale time behind, removed with the number's
    // next alias: not worth a script.
    if (!(await this.isSaved(phone))) return;
    await this.#redis.hset(this.#keys.paid, phone, String(Math.trunc(atMs)));
  }

  async putPending(id: string, pending: RecipientPending, ttlMs: number): Promise<void> {
    const checked = checkInput(RecipientPendingSchema, pending, "pending recipient prompt");
    const ttl = Math.max(1, Math.ceil(ttlMs));
    await this.#redis.set(this.#keys.pending(id), JSON.stringify(checked), "PX", ttl);
  }

  async getPending(id: string): Promise<RecipientPending | null> {
    return this.#decodePending(await this.#redis.get(this.#keys.pending(id)));
  }

  async takePending(id: string): Promise<RecipientPending | null> {
    return this.#decodePending(await this.#redis.getdel(this.#keys.pending(id)));
  }

  async #write(
    key: string,
    expectedRev: number,
    json: string,
    phone: string,
  ): Promise<RecipientWriteResult> {
    const k = this.#keys;
    const reply = WriteReplySchema.parse(
      await runScript(
        this.#redis,
        SCRIPTS["recipient-write"],
        [k.recipients, k.phones, k.paid],
        [key, String(expectedRev), json, phone, String(this.#maxEntries)],
      ),
    );
    if (reply[0] !== "conflict") return { outcome: reply[0] };
    return { outcome: "conflict", current: reply[1] === "" ? null : this.#decode(key, reply[1]) };
  }

  #decode(key: string, text: string): Recipient | null {
    const parsed = RecipientSchema.safeParse(parseJsonOrUndefined(text));
    if (parsed.success) return parsed.data;
    // The key is an alias, often a person's name: only its length is logged.
    this.#logger.warn({ aliasLength: key.length }, "stored recipient is not valid; left out");
    return null;
  }

  #decodePending(text: string | null): RecipientPending | null {
    if (text === null) return null;
    const parsed = RecipientPendingSchema.safeParse(parseJsonOrUndefined(text));
    return parsed.success ? parsed.data : null;
  }
}
