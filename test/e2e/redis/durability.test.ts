/**
 * The durability wait (REDIS_DURABILITY): a payout's claim, and later its payment id, are
 * on a replica before the bot goes on. Here the replica's link to the primary runs through
 * a relay that holds every byte 300 ms, as a slow network would: without the wait, the
 * request would leave while only the primary knew of the claim, and a failover then could
 * roll the payout back to "awaiting confirmation" after the money left. And when the primary
 * stops listing the replica (its machine gone), claims are refused as "storage unavailable"
 * until one is back, unless REDIS_DURABILITY=local.
 */
import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TcpRelay } from "../../../src/dev/tcp-relay.js";
import { keys } from "../../../src/store/keys.js";
import { isPromptReading, promptRecord, showPrompt } from "../../support/flows.js";
import { type Harness, PAYER_ID, startHarness } from "../../support/harness.js";
import { PrivateRedis, waitUntil } from "../../support/processes.js";

const LINK_DELAY_MS = 300;

/** The replica's copy of a payout field (JSON-decoded), or null. */
async function replicaField(replica: Redis, key: string, field: string): Promise<unknown> {
  const value = await replica.hget(key, field);
  return value === null ? null : JSON.parse(value);
}

describe("durable writes with a replica behind a slow link", () => {
  let primary: PrivateRedis;
  let replicaServer: PrivateRedis;
  let link: TcpRelay;
  let replica: Redis;
  let h: Harness | undefined;

  beforeEach(async () => {
    primary = await PrivateRedis.start();
    link = await TcpRelay.start({
      targetPort: primary.port,
      upstreamDelayMs: LINK_DELAY_MS,
      downstreamDelayMs: LINK_DELAY_MS,
    });
    replicaServer = await PrivateRedis.start({
      args: ["--replicaof", "127.0.0.1", String(link.port)],
    });
    replica = new Redis(replicaServer.url, { maxRetriesPerRequest: 1 });
    await waitUntil(
      async () => /master_link_status:up/.test(await replica.info("replication")),
      "the replica to be in sync",
    );
  });

  afterEach(async () => {
    await h?.close();
    h = undefined;
    replica.disconnect();
    await replicaServer.close();
    await link.close();
    await primary.close();
  });

  async function start(durability: string) {
    h = await startHarness({
      env: { REDIS_URL: primary.url, REDIS_DURABILITY: durability },
    });
    return h;
  }

  it("has the claim on the replica before the request leaves, and the payment id on it once recorded", async () => {
    const harness = await start("auto");
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(harness.emulator, payer, "/pay 237670000001 5000");
    const record = keys(harness.prefix).payout((await promptRecord(harness, prompt)).id);
    const pending = harness.emulator.waitForMessage(isPromptReading(prompt, "Pending"), 15_000);

    await payer.pressButton(prompt, 0);
    await waitUntil(
      () => harness.sandbox.countRequests({ method: "POST", path: "/disburse" }) === 1,
      "the payment request",
    );
    // The request is at the API: the replica must already know it may have been sent.
    expect(await replicaField(replica, record, "state")).toBe("submitting");
    expect(await replicaField(replica, record, "sentAtMs")).toEqual(expect.any(Number));

    // Pending shows alongside the answer's record (a crash between ends `unknown` with no
    // second request: test/e2e/pay/pending-before-record.test.ts); the record reaches the
    // replica, and the payout may even have settled by then (150 ms).
    await pending;
    const [payment] = harness.sandbox.snapshot().payments;
    await waitUntil(
      async () => (await replicaField(replica, record, "paymentId")) === payment?.id,
      "the payment id on the replica",
    );
    expect(["pending", "success"]).toContain(await replicaField(replica, record, "state"));
  });

  it("sends nothing when no replica confirms the claim in time, and says so", async () => {
    const harness = await start("auto");
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(harness.emulator, payer, "/pay 237670000001 5000");
    // The replica is still listed as online, but nothing it is sent comes back any more.
    link.setDelays(60_000, 60_000);

    const refused = harness.emulator.waitForMessage(
      isPromptReading(prompt, "Not accepted"),
      15_000,
    );
    await payer.pressButton(prompt, 0);
    const shown = await refused;
    expect(harness.emulator.plainText(shown)).toContain("storage could not confirm");
    expect(harness.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
  });

  it("refuses claims as storage unavailable once the primary lost the replica it waited for, until one is back", async () => {
    const harness = await start("auto");
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const primaryClient = new Redis(primary.url, { maxRetriesPerRequest: 1 });
    const replicasListed = async () =>
      Number(/connected_slaves:(\d+)/.exec(await primaryClient.info("replication"))?.[1] ?? -1);
    try {
      const first = await showPrompt(harness.emulator, payer, "/pay 237670000001 5000");
      // The replica's machine is gone: the primary stops listing it (as after a partition
      // longer than repl-timeout).
      replica.disconnect();
      await replicaServer.stop("SIGKILL");
      await waitUntil(
        async () => (await replicasListed()) === 0,
        "the primary to drop its replica",
      );

      // The wait this claim was made under cannot be met: it is not sent.
      const notSent = harness.emulator.waitForMessage(
        isPromptReading(first, "Not accepted"),
        15_000,
      );
      await payer.pressButton(first, 0);
      expect(harness.emulator.plainText(await notSent)).toContain("storage could not confirm");

      // From then on a claim is refused before it is made: the prompt stays, to press later.
      const second = await showPrompt(harness.emulator, payer, "/pay 237670000002 6000");
      const refused = await payer.pressButton(second, 0);
      const answer = await harness.emulator.waitForCallbackAnswer(refused.callbackQueryId, 10_000);
      expect(answer.text).toBe(
        "The bot cannot take payouts right now: its storage is unavailable. Nothing was sent. Try again in a minute.",
      );
      const waiting = await harness.app.stores.payouts.list({
        userId: PAYER_ID,
        offset: 0,
        limit: 1,
      });
      expect(waiting.items[0]?.state).toBe("awaiting_confirmation");
      expect(
        harness.emulator.message(PAYER_ID, second.messageId)?.replyMarkup?.flat(),
      ).toHaveLength(2);
      expect(harness.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);

      // The replica is back: the same prompt's Confirm goes through.
      await replicaServer.start();
      await waitUntil(async () => (await replicasListed()) === 1, "the replica to be back");
      await waitUntil(
        async () => /slave0:.*state=online/.test(await primaryClient.info("replication")),
        "the replica to be online",
      );
      const pending = harness.emulator.waitForMessage(isPromptReading(second, "Pending"), 15_000);
      await payer.pressButton(second, 0);
      await pending;
      expect(harness.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
    } finally {
      primaryClient.disconnect();
    }
  });

  it("goes on paying with REDIS_DURABILITY=local when the replica is gone", async () => {
    const harness = await start("local");
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const primaryClient = new Redis(primary.url, { maxRetriesPerRequest: 1 });
    try {
      replica.disconnect();
      await replicaServer.stop("SIGKILL");
      await waitUntil(
        async () => /connected_slaves:0/.test(await primaryClient.info("replication")),
        "the primary to drop its replica",
      );
      const prompt = await showPrompt(harness.emulator, payer, "/pay 237670000001 5000");
      const pending = harness.emulator.waitForMessage(isPromptReading(prompt, "Pending"), 15_000);
      await payer.pressButton(prompt, 0);
      await pending;
      expect(harness.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
    } finally {
      primaryClient.disconnect();
    }
  });
});
