/**
 * Signed events from real bot processes (`src/main.ts start`, production retry pauses):
 * one killed with SIGKILL while an event waits for its next try, and two replicas on one
 * Redis. The receiver checks every signature with the `standardwebhooks` package.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { keys } from "../../../src/store/keys.js";
import { EventReceiver } from "../../support/event-receiver.js";
import { payAndConfirm } from "../../support/flows.js";
import { PAYER_ID } from "../../support/harness.js";
import { startBot, waitUntil } from "../../support/processes.js";
import { testRedis } from "../../support/redis.js";
import { lapsePollerLease, worldPerTest } from "../../support/world.js";

const PAYOUT_TYPES = ["payout.submitted", "payout.pending", "payout.succeeded"];

describe("signed events from bot processes", () => {
  const world = worldPerTest();
  let receiver: EventReceiver;

  beforeEach(async () => {
    receiver = await new EventReceiver().listen();
  });
  afterEach(() => receiver.close());

  const accepted = (payoutId: string) =>
    receiver.accepted.filter((event) => event.body.data.id === payoutId);

  async function paid(command: string) {
    const payer = world.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await payAndConfirm(world.emulator, payer, command);
    const { items } = await world.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 1 });
    const payout = items[0];
    if (!payout) throw new Error("no payout stored");
    await waitUntil(
      async () => (await world.stores.payouts.get(payout.id))?.state === "success",
      "the payout to succeed",
    );
    return payout;
  }

  /** A killed process's events lease lapses now rather than in 45 s: time passing, for one key. */
  async function lapseEventsLease() {
    const redis = testRedis();
    await redis.del(keys(world.prefix).lease("events"));
    await redis.quit();
  }

  it("delivers an event that waited for a retry after the bot was killed and started again, once", async () => {
    receiver.fallback = 500;
    const env = { ...world.env, ...receiver.env };
    const first = await startBot(env);
    const payout = await paid("/pay 237670000001 5000");
    await waitUntil(() => receiver.received.length > 0, "the first try");
    // The failure is logged once the 500 is read: kill only after that, or the log is lost.
    await first.process.waitForLog((line) => String(line.msg).startsWith("event try failed"));
    const firstId = receiver.received[0]?.id;
    await first.process.kill("SIGKILL");
    const killedAtMs = Date.now();
    expect(receiver.accepted).toHaveLength(0);

    receiver.fallback = 200;
    await lapsePollerLease(world);
    await lapseEventsLease();
    const second = await startBot(env);
    await waitUntil(
      () => accepted(payout.id).length === PAYOUT_TYPES.length,
      "the payout's events after the restart",
      30_000,
    );

    expect(accepted(payout.id).map((event) => event.body.type)).toEqual(PAYOUT_TYPES);
    const tries = receiver.received.filter((event) => event.id === firstId);
    expect(tries.length).toBeGreaterThanOrEqual(2);
    expect(tries.filter((event) => event.status === 200)).toHaveLength(1);
    expect(tries.find((event) => event.status === 200)?.atMs).toBeGreaterThan(killedAtMs);
    expect(receiver.received.every((event) => event.verified)).toBe(true);
    // The failed tries were logged; the secret never was.
    const logs = JSON.stringify([...first.process.logs, ...second.process.logs]);
    expect(logs).toContain("signed events on");
    expect(logs).toContain("event try failed");
    expect(logs).not.toContain(receiver.secret.slice("whsec_".length));
  });

  it("has each event accepted once with two replicas running", async () => {
    const env = { ...world.env, ...receiver.env };
    await Promise.all([startBot(env), startBot(env)]);
    const payouts = [
      await paid("/pay 237670000001 5000"),
      await paid("/pay 237690000001 7000"),
      await paid("/pay 237670000011 9000"),
    ];
    await waitUntil(
      () => payouts.every((payout) => accepted(payout.id).length === PAYOUT_TYPES.length),
      "every payout's events",
      15_000,
    );

    for (const payout of payouts) {
      expect(accepted(payout.id).map((event) => event.body.type)).toEqual(PAYOUT_TYPES);
    }
    const ids = receiver.received.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(receiver.received.every((event) => event.verified)).toBe(true);
  });
});
