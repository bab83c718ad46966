/**
 * Callbacks are hints, and anyone can send one where signatures are off. They must not be
 * able to spend the API's shared rate limit: at most one re-read per payout every 5 s, and
 * a capped number per minute, so a flood of forged callbacks leaves Confirm working.
 */
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { confirmPayout, payAndConfirm } from "../../support/flows.js";
import { type Harness, harnessPerTest, PAYER_ID } from "../../support/harness.js";

/** Posts `count` copies of `body` to the app's payment webhook at once; their statuses. */
async function flood(h: Harness, body: string, count: number): Promise<number[]> {
  const http = h.app.http;
  if (!http) throw new Error("the app runs no HTTP server");
  const url = `${http.url}${h.app.config.payment.webhookPath}`;
  return Promise.all(
    Array.from({ length: count }, () =>
      request(url, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
      }).then(async (response) => {
        await response.body.dump();
        return response.statusCode;
      }),
    ),
  );
}

function rereadsOf(h: Harness, paymentId: string | undefined): number {
  return h.sandbox.countRequests({ method: "GET", path: `/payments/${paymentId}` });
}

// No signature key: every callback is taken as a hint (the sandbox environment allows it).
// Polling is pushed out of the way, so every GET /payments/{id} seen is a callback's re-read.
const UNSIGNED = { PAYMENT_SIGNATURE_PUBLIC_KEY: "", STATUS_POLL_INTERVAL_MS: "600000" };

describe("a flood of forged payment callbacks", () => {
  const h = harnessPerTest({ env: UNSIGNED });

  it("re-reads one payment at most once in 5 s, and the next Confirm still goes through", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const { payout } = await confirmPayout(h, payer, "/pay 237670000003 5000");
    const forged = JSON.stringify({ id: payout.paymentId, status: "success" });

    const startedMs = Date.now();
    const answers = await flood(h, forged, 150);
    const floodMs = Date.now() - startedMs;
    await h.app.webhook.idle();

    expect(answers.every((status) => status === 202)).toBe(true);
    // One re-read per 5 s the flood lasted (a loaded machine may stretch it past 5 s).
    const rereads = rereadsOf(h, payout.paymentId);
    expect(rereads).toBeGreaterThan(0);
    expect(rereads).toBeLessThanOrEqual(1 + Math.floor(floodMs / 5_000));
    expect((await h.app.stores.payouts.get(payout.id))?.state).toBe("pending");

    await payAndConfirm(h.emulator, payer, "/pay 237670000001 3000", "Pending");
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(2);
  });

  it("never offers an unverified callback to admins as the payment of an unknown payout", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    h.sandbox.injectFault({
      method: "POST",
      path: "/disburse",
      destroySocket: true,
      afterHandling: true,
    });
    await payAndConfirm(h.emulator, payer, "/pay 237670000001 5000", "Outcome unknown");
    const [unknown] = await h.app.stores.payouts.listInState("unknown");
    if (!unknown) throw new Error("the payout is not unknown");
    const http = h.app.http;
    if (!http) throw new Error("the app runs no HTTP server");

    const forged = JSON.stringify({
      id: "pay_planted_by_someone",
      status: "success",
      amount: unknown.amount,
      phoneNumber: unknown.phone,
    });
    const answer = await request(`${http.url}${h.app.config.payment.webhookPath}`, {
      method: "POST",
      body: forged,
      headers: { "content-type": "application/json" },
    });
    await answer.body.dump();

    expect(answer.statusCode).toBe(200);
    expect((await h.app.stores.payouts.get(unknown.id))?.candidatePaymentId).toBeUndefined();
  });
});

describe("forged callbacks for many payouts", () => {
  const h = harnessPerTest({ env: { ...UNSIGNED, PAYMENT_WEBHOOK_REREADS_PER_MINUTE: "2" } });

  it("re-read within the per-minute cap shared by every payout", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const payouts = [];
    for (const amount of [5000, 6000, 7000]) {
      payouts.push((await confirmPayout(h, payer, `/pay 237670000003 ${amount}`)).payout);
    }

    for (const payout of payouts) {
      await flood(h, JSON.stringify({ id: payout.paymentId, status: "success" }), 20);
    }
    await h.app.webhook.idle();

    const rereads = payouts.map((payout) => rereadsOf(h, payout.paymentId));
    expect(rereads).toEqual([1, 1, 0]);
  });
});
