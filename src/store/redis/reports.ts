/**
 * ReportsStore on Redis: a key per day whose digest was queued (SET NX and the outbox
 * entry in one script, lua/digest-once.lua), and a hash of each operation's last seen state, compared and
 * changed in one script with the alert it calls for (lua/availability-observe.lua).
 */
import { z } from "zod";
import type { OperationObservation, OperationState } from "../../model/availability.js";
import type { Keys } from "../keys.js";
import {
  availabilityAuditDraft,
  availabilityNoticeKey,
  DIGEST_MARK_MS,
  decodeOperationState,
  digestNoticeKey,
  observedState,
  operationField,
} from "../reports-codec.js";
import type { AvailabilityChange, ReportsStore } from "../types.js";
import type { RedisClient } from "./connection.js";
import { runScript, SCRIPTS } from "./scripts.js";

/** Built once: building a zod schema costs more than running it. */
const NumberReplySchema = z.number();

const ObserveReplySchema = z.union([
  z.tuple([z.enum(["same", "first"]), z.string()]),
  z.tuple([z.literal("changed"), z.string(), z.string()]),
]);

export class RedisReportsStore implements ReportsStore {
  readonly #redis: RedisClient;
  readonly #keys: Keys;

  constructor(redis: RedisClient, keys: Keys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  async queueDigestOnce(day: string, nowMs: number): Promise<boolean> {
    const reply = await runScript(
      this.#redis,
      SCRIPTS["digest-once"],
      [this.#keys.digestMark(day), this.#keys.outbox()],
      [DIGEST_MARK_MS, nowMs, digestNoticeKey(day)],
    );
    return NumberReplySchema.parse(reply) === 1;
  }

  async observeAvailability(
    observation: OperationObservation,
    nowMs: number,
  ): Promise<AvailabilityChange> {
    const changed = observedState(observation, nowMs, false);
    const first = observedState(observation, nowMs, true);
    const reply = ObserveReplySchema.parse(
      await runScript(
        this.#redis,
        SCRIPTS["availability-observe"],
        [this.#keys.availability(), this.#keys.outbox(), this.#keys.auditLog()],
        [
          JSON.stringify({
            field: operationField(observation),
            up: changed.up ? "1" : "0",
            nowMs: String(nowMs),
          }),
          JSON.stringify(changed),
          availabilityNoticeKey(changed),
          JSON.stringify(first),
          availabilityNoticeKey(first),
          JSON.stringify(availabilityAuditDraft(changed)),
          JSON.stringify(availabilityAuditDraft(first)),
        ],
      ),
    );
    const state = this.#decode(reply[1]);
    if (reply[0] !== "changed") return { kind: reply[0], state };
    return { kind: "changed", state, previous: this.#decode(reply[2]) };
  }

  async availability(): Promise<OperationState[]> {
    const hash = z
      .record(z.string(), z.string())
      .parse(await this.#redis.hgetall(this.#keys.availability()));
    return Object.entries(hash)
      .filter(([field]) => !field.endsWith(":up"))
      .flatMap(([, text]) => decodeOperationState(text) ?? []);
  }

  #decode(text: string): OperationState {
    const state = decodeOperationState(text);
    if (!state) throw new Error("stored availability state does not read");
    return state;
  }
}
