/**
 * A Redis blip at the worst moment: the payment request has left, and Redis is unreachable
 * when its 201 comes back. The payment id is in hand and must not be lost: the bot keeps
 * asking Redis until it can write it, and the payout ends pending with that id.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TcpRelay } from "../../../src/dev/tcp-relay.js";
import { isPromptReading, showPrompt } from "../../support/flows.js";
import { type Harness, PAYER_ID, startHarness } from "../../support/harness.js";
import { testRedisUrl } from "../../support/redis.js";

describe("a Redis blip while a payment request is in flight", () => {
  let relay: TcpRelay;
  let h: Harness;

  beforeEach(async () => {
    const redis = new URL(testRedisUrl());
    relay = await TcpRelay.start({
      targetHost: redis.hostname,
      targetPort: Number(redis.port || 6379),
    });
    // The same database as the test Redis (REDIS_URL may name one).
    h = await startHarness({
      env: { REDIS_URL: `redis://127.0.0.1:${relay.port}${redis.pathname}` },
    });
  });

  afterEach(async () => {
    await h.close();
    await relay.close();
  });

  it("records the payment id once Redis is back, and the payout goes on with it", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 237670000001 5000");
    // The API takes its time: Redis goes away while the request is at the API.
    h.sandbox.injectFault({ method: "POST", path: "/disburse", delayMs: 800 });
    const pending = h.emulator.waitForMessage(isPromptReading(prompt, "Pending"), 20_000);

    await payer.pressButton(prompt, 0);
    await expect.poll(() => h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
    relay.blip(2_000);

    // Pending shows once the API accepted, alongside the answer's record (which waits for
    // Redis to come back): the record is read once it is there.
    await pending;
    const [payment] = h.sandbox.snapshot().payments;
    const latest = async () => {
      try {
        const page = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 1 });
        return page.items[0];
      } catch {
        return undefined; // Redis still away
      }
    };
    await expect
      .poll(async () => (await latest())?.paymentId, { timeout: 10_000 })
      .toBe(payment?.id);
    // Pending with it, or already paid: the record waited for Redis, the sandbox did not.
    expect(["pending", "success"]).toContain((await latest())?.state);
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
  });
});
