import { request } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { HttpErrorSchema, PaymentSchema } from "../../../src/payments/schemas.js";
import { type SandboxHandle, startSandbox } from "../../../src/sandbox/index.js";
import { call, waitFor } from "./helpers.js";

const DISBURSE = { amount: 1000, phoneNumber: "237670000001" };
let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, settleDelayMs: 20, rateLimitPerMinute: 0 });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

describe("Sandbox faults", () => {
  it("answers a status fault with a default HttpError and Retry-After, and creates no payment", async () => {
    sandbox.injectFault({ method: "POST", path: "/disburse", status: 503, retryAfterSeconds: 7 });
    const faulted = await call(sandbox, "POST", "/disburse", { body: DISBURSE });
    expect(faulted.status).toBe(503);
    expect(faulted.headers["retry-after"]).toBe("7");
    expect(HttpErrorSchema.parse(faulted.json)).toMatchObject({ statusCode: 503 });
    expect(sandbox.snapshot().payments).toHaveLength(0);
    expect(sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);

    const next = await call(sandbox, "POST", "/disburse", { body: DISBURSE });
    expect(next.status).toBe(201);
    expect(sandbox.snapshot().payments).toHaveLength(1);
  });

  it("sends a custom body, a string verbatim, even with a 2xx status, and creates no payment", async () => {
    sandbox.injectFault({ path: "/disburse", status: 201, body: "not json at all" });
    const garbage = await call(sandbox, "POST", "/disburse", { body: DISBURSE });
    expect(garbage.status).toBe(201);
    expect(garbage.text).toBe("not json at all");

    sandbox.injectFault({ path: "/availability", status: 500, body: { message: "boom" } });
    const custom = await call(sandbox, "GET", "/availability");
    expect(custom.status).toBe(500);
    expect(custom.json).toEqual({ message: "boom" });
    expect(sandbox.snapshot().payments).toHaveLength(0);
  });

  it("matches faults by method and by path pattern", async () => {
    sandbox.injectFault({ method: "GET", path: /^\/payments\//, status: 502 });
    expect((await call(sandbox, "POST", "/disburse", { body: DISBURSE })).status).toBe(201);
    expect((await call(sandbox, "GET", "/availability")).status).toBe(200);
    expect((await call(sandbox, "GET", "/payments/pay_any")).status).toBe(502);
    expect((await call(sandbox, "GET", "/payments/pay_any")).status).toBe(404);
  });

  it("applies a fault `times` times, or forever with Infinity", async () => {
    sandbox.injectFault({ path: "/availability", status: 500, times: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(sandbox, "GET", "/availability")).status);
    expect(statuses).toEqual([500, 500, 200]);

    sandbox.injectFault({ path: "/availability", status: 500, times: Number.POSITIVE_INFINITY });
    for (let i = 0; i < 5; i++) {
      expect((await call(sandbox, "GET", "/availability")).status).toBe(500);
    }
    expect(sandbox.snapshot().pendingFaults).toBe(1);
  });

  it("lets a delayed request through, so a delayed POST does create its payment", async () => {
    sandbox.injectFault({ method: "POST", path: "/disburse", delayMs: 30 });
    const delayed = await call(sandbox, "POST", "/disburse", { body: DISBURSE });
    expect(delayed.status).toBe(201);
    expect(sandbox.getPayment(PaymentSchema.parse(delayed.json).id)).toBeDefined();
  });

  it("destroys the socket after reading the whole request and creates no payment", async () => {
    sandbox.injectFault({ method: "POST", path: "/disburse", destroySocket: true });
    await expect(call(sandbox, "POST", "/disburse", { body: DISBURSE })).rejects.toThrow();
    expect(sandbox.requests.at(-1)?.body).toEqual(DISBURSE);
    expect(sandbox.snapshot().payments).toHaveLength(0);
  });

  it("records a hung request, never answers it, and still closes promptly", async () => {
    const hung = await startSandbox({ port: 0 });
    hung.injectFault({ method: "POST", path: "/disburse", hang: true });
    const pending = request(`${hung.url}/disburse`, {
      method: "POST",
      headers: { "x-api-key": hung.apiKey, "content-type": "application/json" },
      body: JSON.stringify(DISBURSE),
    });
    const outcome = pending.then(
      (response) => `answered ${response.statusCode}`,
      () => "connection dropped",
    );
    await waitFor(
      () => (hung.countRequests({ path: "/disburse" }) === 1 ? true : undefined),
      "hung request",
    );
    expect(hung.snapshot().payments).toHaveLength(0);
    await hung.close();
    expect(await outcome).toBe("connection dropped");
  });

  it("with afterHandling, creates the payment and then loses the answer", async () => {
    sandbox.injectFault({
      method: "POST",
      path: "/disburse",
      destroySocket: true,
      afterHandling: true,
    });
    await expect(call(sandbox, "POST", "/disburse", { body: DISBURSE })).rejects.toThrow();
    expect(sandbox.snapshot().payments).toHaveLength(1);

    sandbox.injectFault({ method: "POST", path: "/disburse", status: 504, afterHandling: true });
    expect((await call(sandbox, "POST", "/disburse", { body: DISBURSE })).status).toBe(504);
    expect(sandbox.snapshot().payments).toHaveLength(2);
  });

  it("refuses a fault with times 0", () => {
    expect(() => sandbox.injectFault({ status: 500, times: 0 })).toThrow(RangeError);
  });

  it("forgets faults on reset", async () => {
    sandbox.injectFault({ path: "/availability", status: 500, times: 3 });
    sandbox.reset();
    expect((await call(sandbox, "GET", "/availability")).status).toBe(200);
  });
});
