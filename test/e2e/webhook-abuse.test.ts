/**
 * Callbacks are hints, and anyone can send one where signatures are off. They must not be
 * able to spend the API's shared rate limit: at most one re-read per payout at a time, and
 * a capped number per minute, so a flood of forged callbacks leaves Confirm working.
 */
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { confirmPayout, payAndConfirm } from "../support/flows.js";
import { harnessPerTest, PAYER_ID } from "../support/harness.js";

describe("a flood of forged payment callbacks", () => {
  // No signature key: every callback is taken as a hint (the sandbox environment allows it).
  const h = harnessPerTest({
    env: { PAYMENT_SIGNATURE_PUBLIC_KEY: "", STATUS_POLL_INTERVAL_MS: "600000" },
  });

  it("spends at most the callback cap of re-reads, and the next Confirm still goes through", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const { payout } = await confirmPayout(h, payer, "/pay 237670000003 5000");
    const http = h.app.http;
    if (!http) throw new Error("the app runs no HTTP server");
    const url = `${http.url}${h.app.config.payment.webhookPath}`;
    const forged = JSON.stringify({ id: payout.paymentId, status: "success" });

    const answers = await Promise.all(
      Array.from({ length: 150 }, () =>
        request(url, {
          method: "POST",
          body: forged,
          headers: { "content-type": "application/json" },
        }).then(async (response) => {
          await response.body.dump();
          return response.statusCode;
        }),
      ),
    );
    await h.app.webhook.idle();

    expect(answers.every((status) => status === 202)).toBe(true);
    const rereads = h.sandbox.countRequests({
      method: "GET",
      path: `/payments/${payout.paymentId}`,
    });
    expect(rereads).toBeGreaterThan(0);
    expect(rereads).toBeLessThanOrEqual(h.app.config.payment.webhookRereadsPerMinute);
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
