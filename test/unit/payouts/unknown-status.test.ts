/**
 * A status outside the spec's four (the real service may add one) leaves the payout
 * pending, and is logged once, not at every poll.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PaymentClient } from "../../../src/payments/client.js";
import { createPayouts } from "../../../src/payouts/payouts.js";
import { type SandboxHandle, startSandbox } from "../../../src/sandbox/index.js";
import { createMemoryStores } from "../../../src/store/memory.js";
import { capturedLogger } from "../../support/logs.js";

let sandbox: SandboxHandle;
let client: PaymentClient;

beforeAll(async () => {
  sandbox = await startSandbox({ settleDelayMs: 600_000, rateLimitPerMinute: 0 });
  client = new PaymentClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});

describe("a payment status the spec does not name", () => {
  it("keeps the payout pending at every poll and logs the status once", async () => {
    const logs = capturedLogger("warn");
    const stores = createMemoryStores({ retentionMs: 86_400_000 });
    await stores.staff.set(1, "payer");
    const payouts = createPayouts({
      gateway: client,
      stores,
      logger: logs.logger,
      confirmationTtlSeconds: 300,
      statusPollIntervalMs: 5000,
    });
    const prepared = await payouts.preparation.prepare({
      kind: "disbursement",
      phone: "237670000003",
      amount: "5000",
      initiatorId: 1,
      initiatorRole: "payer",
      chatId: 1,
      locale: "en",
    });
    if (prepared.outcome === "refused") throw new Error(prepared.reason);
    const claim = await payouts.submission.claim(prepared.payout.id, { userId: 1, role: "payer" });
    if (claim.outcome !== "claimed") throw new Error(claim.outcome);
    const submitted = await payouts.submission.submit(claim);
    const paymentId = submitted.payout.paymentId ?? "";
    const payment = sandbox.getPayment(paymentId);
    sandbox.injectFault({
      method: "GET",
      path: `/payments/${paymentId}`,
      status: 200,
      body: { ...payment, status: "PROCESSING" },
      times: 3,
    });

    const results = [];
    for (let poll = 0; poll < 3; poll++)
      results.push(await payouts.settlement.settle(submitted.payout.id));

    expect(results.map((result) => result.outcome)).toEqual([
      "still_pending",
      "still_pending",
      "still_pending",
    ]);
    expect((await stores.payouts.get(submitted.payout.id))?.state).toBe("pending");
    const told = logs.lines.filter((line) => line.msg?.includes("status we do not know"));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ status: "PROCESSING" });
  });
});
