import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { HttpErrorSchema, PaymentSchema } from "../../../src/payments/schemas.js";
import { isLoopback } from "../../../src/sandbox/http-io.js";
import { type SandboxHandle, SCRIPTED_NUMBERS, startSandbox } from "../../../src/sandbox/index.js";
import { call, startReceiver, waitFor } from "./helpers.js";

let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    settleDelayMs: 20,
    rateLimitPerMinute: 0,
    initialBalance: 5000,
  });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

/** An admin call: no API key. */
const admin = (method: "GET" | "POST", path: string, body?: unknown) =>
  call(sandbox, method, `/_sandbox/${path}`, { apiKey: null, body });

async function disburse(phoneNumber = "237670000003") {
  const response = await call(sandbox, "POST", "/disburse", { body: { amount: 100, phoneNumber } });
  return PaymentSchema.parse(response.json);
}

describe("Sandbox admin surface", () => {
  it("shows recorded requests, scripted numbers, state and callbacks without an API key", async () => {
    await disburse();
    const requests = await admin("GET", "requests");
    expect(requests.status).toBe(200);
    expect(requests.json).toEqual([expect.objectContaining({ method: "POST", path: "/disburse" })]);
    expect((await admin("GET", "scripted")).json).toEqual(
      JSON.parse(JSON.stringify(SCRIPTED_NUMBERS)),
    );
    const state = await admin("GET", "state");
    expect(state.json).toMatchObject({
      balance: 5000,
      collectionsEnabled: true,
      payments: [{ amount: 100 }],
    });
    expect((await admin("GET", "callbacks")).json).toEqual([]);
    expect(sandbox.countRequests()).toBe(1);
  });

  it("forces a payment status, 404 for an unknown id, 400 for an unknown status", async () => {
    const payment = await disburse();
    const forced = await admin("POST", `payments/${payment.id}/status`, { status: "failed" });
    expect(forced.status).toBe(200);
    expect(forced.json).toMatchObject({ id: payment.id, status: "failed", description: null });
    expect(sandbox.getPayment(payment.id)?.status).toBe("failed");
    // What the service may say about a failure, for the bot to pass on.
    const said = await admin("POST", `payments/${payment.id}/status`, {
      status: "canceled",
      description: "Rejected by the subscriber",
    });
    expect(said.json).toMatchObject({
      status: "canceled",
      description: "Rejected by the subscriber",
    });
    expect((await admin("POST", "payments/pay_nope/status", { status: "failed" })).status).toBe(
      404,
    );
    const garbage = await admin("POST", `payments/${payment.id}/status`, { status: "paid" });
    expect(garbage.status).toBe(400);
    expect(HttpErrorSchema.parse(garbage.json).details).toEqual([
      expect.objectContaining({ field: "status" }),
    ]);
  });

  it("suspends an operation and switches collections and disbursements", async () => {
    expect(
      (
        await admin("POST", "availability", {
          operator: "mtn",
          type: "collection",
          status: "SUSPENDED",
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(sandbox, "POST", "/collect", {
          body: { amount: 100, phoneNumber: "237670000001" },
        })
      ).status,
    ).toBe(403);

    expect((await admin("POST", "disbursements", { enabled: false })).json).toMatchObject({
      disbursementsEnabled: false,
    });
    expect(
      (
        await call(sandbox, "POST", "/disburse", {
          body: { amount: 100, phoneNumber: "237690000001" },
        })
      ).status,
    ).toBe(403);
    expect((await admin("POST", "collections", { enabled: false })).json).toMatchObject({
      collectionsEnabled: false,
    });
    expect(
      (
        await call(sandbox, "POST", "/collect", {
          body: { amount: 100, phoneNumber: "237690000001" },
        })
      ).status,
    ).toBe(403);
  });

  it("queues faults posted as JSON, with times 'infinite'", async () => {
    const queued = await admin("POST", "faults", {
      method: "GET",
      path: "/availability",
      status: 500,
      times: "infinite",
    });
    expect(queued.status).toBe(200);
    expect(queued.json).toMatchObject({ pendingFaults: 1 });
    for (let i = 0; i < 3; i++)
      expect((await call(sandbox, "GET", "/availability")).status).toBe(500);
  });

  it("sets the callback URL, settle delay and balance", async () => {
    const target = await startReceiver();
    try {
      expect((await admin("POST", "callback-url", { url: target.url })).json).toMatchObject({
        callbackUrl: target.url,
      });
      expect((await admin("POST", "settle-delay", { ms: 5 })).json).toMatchObject({
        settleDelayMs: 5,
      });
      expect((await admin("POST", "balance", { amount: 50 })).json).toMatchObject({ balance: 50 });
      const payment = await disburse("237670000001");
      await waitFor(() => (target.received.length === 1 ? true : undefined), "callback");
      expect(sandbox.getPayment(payment.id)?.status).toBe("failed");
      expect((await admin("POST", "callback-url", { url: null })).json).toMatchObject({
        callbackUrl: null,
      });
    } finally {
      await target.close();
    }
  });

  it("resets everything", async () => {
    await disburse();
    await admin("POST", "balance", { amount: 1 });
    await admin("POST", "collections", { enabled: false });
    await admin("POST", "faults", { status: 500 });
    const reset = await admin("POST", "reset");
    expect(reset.status).toBe(200);
    expect(reset.json).toMatchObject({
      balance: 5000,
      collectionsEnabled: true,
      pendingFaults: 0,
      recordedRequests: 0,
      payments: [],
    });
  });

  const garbage: Array<[string, unknown]> = [
    ["availability", { operator: "nexttel", type: "collection", status: "SUSPENDED" }],
    ["availability", { operator: "mtn", type: "collection", status: "down; drop table" }],
    ["collections", { enabled: "no" }],
    ["disbursements", "not json"],
    ["faults", {}],
    ["faults", { status: 99 }],
    ["faults", { status: 500, times: 0 }],
    ["faults", { status: 500, path: "no-slash" }],
    ["callback-url", { url: "ftp://127.0.0.1/x" }],
    ["callback-url", {}],
    ["settle-delay", { ms: -1 }],
    ["balance", { amount: 1.5 }],
  ];

  it.each(garbage)("answers 400 to garbage posted to %s", async (path, body) => {
    const before = sandbox.snapshot();
    const response = await admin("POST", path, body);
    expect(response.status).toBe(400);
    expect(HttpErrorSchema.parse(response.json).details?.length).toBeGreaterThan(0);
    expect(sandbox.snapshot()).toEqual(before);
  });

  it("answers 404 to unknown admin routes and 405 to wrong methods", async () => {
    expect((await admin("GET", "nothing")).status).toBe(404);
    expect((await call(sandbox, "GET", "/_sandbox", { apiKey: null })).status).toBe(404);
    expect((await admin("GET", "reset")).status).toBe(405);
    expect((await admin("POST", "state")).status).toBe(405);
  });

  it("treats only loopback peers as local", () => {
    expect(["127.0.0.1", "127.8.9.1", "::1", "::ffff:127.0.0.1"].every(isLoopback)).toBe(true);
    expect(["10.0.0.1", "::ffff:10.0.0.1", "192.168.1.127", undefined].some(isLoopback)).toBe(
      false,
    );
  });
});
