import { afterEach, describe, expect, it } from "vitest";
import { PaymentSchema } from "../../../src/payments/schemas.js";
import { headerValue, loadPublicKey, verifyParts } from "../../../src/payments/signature.js";
import {
  type SandboxHandle,
  type SandboxOptions,
  startSandbox,
} from "../../../src/sandbox/index.js";
import { type CallbackReceiver, call, startReceiver, waitFor } from "./helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sandboxWith(options: SandboxOptions): Promise<SandboxHandle> {
  const sandbox = await startSandbox({
    port: 0,
    settleDelayMs: 10,
    rateLimitPerMinute: 0,
    ...options,
  });
  cleanups.push(() => sandbox.close());
  return sandbox;
}

async function receiver(statusFor?: (n: number) => number): Promise<CallbackReceiver> {
  const started = await startReceiver(statusFor);
  cleanups.push(() => started.close());
  return started;
}

async function disburse(sandbox: SandboxHandle, phoneNumber: string) {
  const response = await call(sandbox, "POST", "/disburse", { body: { amount: 700, phoneNumber } });
  return PaymentSchema.parse(response.json);
}

const received = (target: CallbackReceiver, count: number) =>
  waitFor(() => (target.received.length >= count ? true : undefined), `${count} callbacks`);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Sandbox callbacks", () => {
  it("POSTs the final payment, signed over the callback path and exact body", async () => {
    const target = await receiver();
    const sandbox = await sandboxWith({ callbackUrl: target.url });
    const payment = await disburse(sandbox, "237670000001");
    await received(target, 1);

    const [delivery] = target.received;
    expect(delivery?.path).toBe("/webhooks/payments?source=sandbox");
    expect(delivery?.headers["content-type"]).toBe("application/json");
    const body = PaymentSchema.parse(JSON.parse(delivery?.body ?? ""));
    expect(body).toMatchObject({ id: payment.id, status: "success", amount: 700 });
    const check = (text: string) =>
      verifyParts({
        publicKey: loadPublicKey(sandbox.publicKeyPem),
        signature: headerValue(delivery?.headers["x-sig"]),
        timestamp: headerValue(delivery?.headers["x-sig-timestamp"]),
        method: "POST",
        pathAndQuery: "/webhooks/payments?source=sandbox",
        body: text,
      });
    expect(check(delivery?.body ?? "")).toBeNull();
    expect(check((delivery?.body ?? "").replace("success", "failed"))).toBe("mismatch");
  });

  it("retries after a 500 from the receiver until it answers 200, then stops", async () => {
    const target = await receiver((n) => (n <= 2 ? 500 : 200));
    const sandbox = await sandboxWith({
      callbackUrl: target.url,
      callbackRetryDelaysMs: [20, 20, 20, 20],
    });
    const payment = await disburse(sandbox, "237690000002");
    await received(target, 3);
    await pause(100);
    expect(target.received).toHaveLength(3);
    expect(target.received.map((r) => PaymentSchema.parse(JSON.parse(r.body)).status)).toEqual([
      "failed",
      "failed",
      "failed",
    ]);
    expect(sandbox.callbackAttempts.map((a) => [a.paymentId, a.attempt, a.outcome])).toEqual([
      [payment.id, 1, 500],
      [payment.id, 2, 500],
      [payment.id, 3, 200],
    ]);
  });

  it("gives up after the last retry delay", async () => {
    const target = await receiver(() => 503);
    const sandbox = await sandboxWith({ callbackUrl: target.url, callbackRetryDelaysMs: [10, 10] });
    await disburse(sandbox, "237670000005");
    await received(target, 3);
    await pause(100);
    expect(target.received).toHaveLength(3);
  });

  it("retries when the receiver cannot be reached, and times out a silent one", async () => {
    const gone = await startReceiver();
    await gone.close();
    const silent = await receiver(() => 0);
    const sandbox = await sandboxWith({
      callbackUrl: gone.url,
      callbackRetryDelaysMs: [10],
      callbackTimeoutMs: 50,
    });
    await disburse(sandbox, "237670000001");
    await waitFor(() => (sandbox.callbackAttempts.length === 2 ? true : undefined), "2 attempts");
    expect(sandbox.callbackAttempts.map((a) => a.outcome)).toEqual([
      "network-error",
      "network-error",
    ]);

    sandbox.reset();
    sandbox.setCallbackUrl(silent.url);
    await disburse(sandbox, "237670000001");
    await waitFor(() => (sandbox.callbackAttempts.length === 2 ? true : undefined), "2 timeouts");
    expect(sandbox.callbackAttempts.map((a) => a.outcome)).toEqual(["timeout", "timeout"]);
  });

  it("fires on forceStatus and on a callback URL set at run time, never for pending", async () => {
    const target = await receiver();
    const sandbox = await sandboxWith({});
    const quiet = await disburse(sandbox, "237670000001");
    await waitFor(
      () => (sandbox.getPayment(quiet.id)?.status === "success" ? true : undefined),
      "settle",
    );
    expect(sandbox.callbackAttempts).toHaveLength(0);

    sandbox.setCallbackUrl(target.url);
    const stuck = await disburse(sandbox, "237670000003");
    sandbox.forceStatus(stuck.id, "pending");
    sandbox.forceStatus(stuck.id, "canceled");
    await received(target, 1);
    expect(PaymentSchema.parse(JSON.parse(target.received[0]?.body ?? "")).status).toBe("canceled");
    expect(target.received).toHaveLength(1);
  });

  it("cancels waiting retries on close", async () => {
    const target = await receiver(() => 500);
    const sandbox = await startSandbox({
      port: 0,
      settleDelayMs: 10,
      callbackUrl: target.url,
      callbackRetryDelaysMs: [50, 50, 50],
    });
    await disburse(sandbox, "237670000001");
    await received(target, 1);
    await sandbox.close();
    await pause(200);
    expect(target.received).toHaveLength(1);
  });
});
