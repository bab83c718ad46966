import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  AvailabilitySchema,
  HttpErrorSchema,
  PaymentSchema,
  UserInfoSchema,
} from "../../../src/payments/schemas.js";
import {
  DEFAULT_SANDBOX_API_KEY,
  SANDBOX_MAX_AMOUNT_XAF,
  type SandboxHandle,
  startSandbox,
} from "../../../src/sandbox/index.js";
import { call } from "./helpers.js";

let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, settleDelayMs: 50, rateLimitPerMinute: 0 });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

function errorOf(json: unknown) {
  return HttpErrorSchema.parse(json);
}

describe("Sandbox endpoints", () => {
  it("creates a pending disbursement with every Payment field and a 1% fee", async () => {
    const response = await call(sandbox, "POST", "/disburse", {
      body: { amount: 12_345, phoneNumber: "237670000001" },
    });
    expect(response.status).toBe(201);
    expect(response.headers["content-type"]).toBe("application/json");
    // As the real service's published 201 example: every field, description null.
    expect(response.json).toMatchObject({ description: null });
    const payment = PaymentSchema.parse(response.json);
    expect(payment).toMatchObject({
      status: "pending",
      amount: 12_345,
      fee: 124,
      currency: "XAF",
      merchantId: 1001,
      paymentType: "disbursement",
      phoneNumber: "237670000001",
      telecomOperator: "mtn",
    });
    expect(payment.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Number.isNaN(Date.parse(payment.createdAt ?? ""))).toBe(false);
    expect(payment.updatedAt).toBe(payment.createdAt);
  });

  it("creates a pending collection with a 2% fee on the Orange number", async () => {
    const response = await call(sandbox, "POST", "/collect", {
      body: { amount: 1001, phoneNumber: "237690000001" },
    });
    expect(response.status).toBe(201);
    expect(response.json).toMatchObject({
      paymentType: "collection",
      fee: 21,
      telecomOperator: "orange",
      status: "pending",
    });
  });

  it("returns a payment by id and 404 for an unknown id", async () => {
    const created = PaymentSchema.parse(
      (
        await call(sandbox, "POST", "/disburse", {
          body: { amount: 500, phoneNumber: "237650000000" },
        })
      ).json,
    );
    const found = await call(sandbox, "GET", `/payments/${created.id}`);
    expect(found.status).toBe(200);
    expect(PaymentSchema.parse(found.json).id).toBe(created.id);
    expect(sandbox.getPayment(created.id)?.amount).toBe(500);

    const missing = await call(sandbox, "GET", "/payments/pay_0000000000000000");
    expect(missing.status).toBe(404);
    expect(errorOf(missing.json)).toMatchObject({ statusCode: 404, message: "payment not found" });
  });

  it("lists availability for mtn and orange, collection and disbursement", async () => {
    const response = await call(sandbox, "GET", "/availability");
    expect(response.status).toBe(200);
    const entries = AvailabilitySchema.parse(response.json);
    expect(entries).toHaveLength(4);
    expect(entries.map((entry) => `${entry.operator}/${entry.operation.type}`).sort()).toEqual([
      "mtn/collection",
      "mtn/disbursement",
      "orange/collection",
      "orange/disbursement",
    ]);
    expect(entries.every((entry) => entry.operation.status === "OPERATIONAL")).toBe(true);
  });

  it("answers userinfo with the scripted names and 404 for a number with no account", async () => {
    const mtn = await call(sandbox, "GET", "/data/userinfo/237670000001");
    expect(mtn.status).toBe(200);
    expect(UserInfoSchema.parse(mtn.json)).toEqual({ firstName: "Jean-Paul", lastName: "Mbarga" });
    const orange = await call(sandbox, "GET", "/data/userinfo/237690000001");
    expect(orange.json).toEqual({ firstName: "Aïcha", lastName: "Nkoulou" });

    for (const phone of ["237670000004", "237690000004"]) {
      const none = await call(sandbox, "GET", `/data/userinfo/${phone}`);
      expect(none.status).toBe(404);
      expect(errorOf(none.json).message).toBe("user not found");
    }
  });

  it("answers with the name a test gave a number, or no account, until reset", async () => {
    sandbox.setRegisteredName("237670000001", { firstName: "Eric", lastName: "Tamba" });
    const changed = await call(sandbox, "GET", "/data/userinfo/237670000001");
    expect(changed.json).toEqual({ firstName: "Eric", lastName: "Tamba" });
    sandbox.setRegisteredName("237690000001", null);
    expect((await call(sandbox, "GET", "/data/userinfo/237690000001")).status).toBe(404);
    const paid = await call(sandbox, "POST", "/disburse", {
      body: { amount: 1000, phoneNumber: "237690000001" },
    });
    expect(paid.status).toBe(404);
    expect(() => sandbox.setRegisteredName("670000001", null)).toThrow(RangeError);
    sandbox.reset();
    const back = await call(sandbox, "GET", "/data/userinfo/237670000001");
    expect(back.json).toEqual({ firstName: "Jean-Paul", lastName: "Mbarga" });
  });

  it("gives any other valid number a generated name that stays the same", async () => {
    const first = await call(sandbox, "GET", "/data/userinfo/237677123456");
    const again = await call(sandbox, "GET", "/data/userinfo/237677123456");
    expect(first.status).toBe(200);
    const name = UserInfoSchema.parse(first.json);
    expect(name.firstName.length).toBeGreaterThan(0);
    expect(again.json).toEqual(name);
    const other = await startSandbox({ port: 0 });
    try {
      expect((await call(other, "GET", "/data/userinfo/237677123456")).json).toEqual(name);
    } finally {
      await other.close();
    }
  });

  it("refuses a malformed userinfo number with 400", async () => {
    for (const phone of ["12345", "237660000001", "237abc000001", "%E0%A4%A", "2376700000011"]) {
      const response = await call(sandbox, "GET", `/data/userinfo/${phone}`);
      expect(response.status, phone).toBe(400);
      expect(errorOf(response.json).details?.length, phone).toBeGreaterThan(0);
    }
  });
});

describe("Sandbox request validation", () => {
  const invalidBodies: Array<[string, unknown, string]> = [
    ["no body", "", "body"],
    ["a body that is not JSON", "{amount: 5", "body"],
    ["a JSON array", [1, 2], "body"],
    ["JSON null", "null", "body"],
    ["a missing amount", { phoneNumber: "237670000001" }, "amount"],
    ["a string amount", { amount: "5000", phoneNumber: "237670000001" }, "amount"],
    ["a zero amount", { amount: 0, phoneNumber: "237670000001" }, "amount"],
    ["a negative amount", { amount: -100, phoneNumber: "237670000001" }, "amount"],
    ["a fractional amount", { amount: 10.5, phoneNumber: "237670000001" }, "amount"],
    [
      "an amount over the maximum",
      { amount: SANDBOX_MAX_AMOUNT_XAF + 1, phoneNumber: "237670000001" },
      "amount",
    ],
    [
      "an amount that overflows to Infinity",
      '{"amount":1e400,"phoneNumber":"237670000001"}',
      "amount",
    ],
    ["a missing phone", { amount: 100 }, "phoneNumber"],
    ["a numeric phone", { amount: 100, phoneNumber: 237670000001 }, "phoneNumber"],
    [
      "a phone with a plus and spaces",
      { amount: 100, phoneNumber: "+237 670 00 00 01" },
      "phoneNumber",
    ],
    ["a phone without the country code", { amount: 100, phoneNumber: "670000001" }, "phoneNumber"],
    ["a Nexttel phone", { amount: 100, phoneNumber: "237660000001" }, "phoneNumber"],
    ["a fixed-line phone", { amount: 100, phoneNumber: "237222000001" }, "phoneNumber"],
    ["a phone in other digits", { amount: 100, phoneNumber: "٢٣٧٦٧٠٠٠٠٠٠١" }, "phoneNumber"],
    [
      "a script injection",
      { amount: 100, phoneNumber: "<script>alert(1)</script>" },
      "phoneNumber",
    ],
    [
      "a prototype-polluting body",
      '{"__proto__":{"amount":5},"phoneNumber":"237670000001"}',
      "amount",
    ],
  ];

  it.each(invalidBodies)("answers 400 with details for %s", async (_label, body, field) => {
    const response = await call(sandbox, "POST", "/disburse", { body });
    expect(response.status).toBe(400);
    const error = errorOf(response.json);
    expect(error.statusCode).toBe(400);
    expect(error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field, problem: expect.any(String) })]),
    );
    expect(sandbox.snapshot().payments).toHaveLength(0);
  });

  it("answers 413 to a body over 64 KiB and creates nothing", async () => {
    const body = JSON.stringify({
      amount: 100,
      phoneNumber: "237670000001",
      pad: "x".repeat(70_000),
    });
    const response = await call(sandbox, "POST", "/disburse", { body });
    expect(response.status).toBe(413);
    expect(errorOf(response.json).statusCode).toBe(413);
    expect(sandbox.snapshot().payments).toHaveLength(0);
  });
});

describe("Sandbox access rules", () => {
  it("answers 401 without an API key or with an unknown one", async () => {
    const none = await call(sandbox, "GET", "/availability", { apiKey: null });
    expect(none.status).toBe(401);
    expect(errorOf(none.json).details).toEqual([{ header: "X-API-Key", problem: "missing" }]);
    const wrong = await call(sandbox, "POST", "/disburse", {
      apiKey: "not-a-key",
      body: { amount: 100, phoneNumber: "237670000001" },
    });
    expect(wrong.status).toBe(401);
    expect(sandbox.snapshot().payments).toHaveLength(0);
  });

  it("takes the API key header in any letter case", async () => {
    const response = await call(sandbox, "GET", "/availability", {
      apiKey: null,
      headers: { "X-API-KEY": DEFAULT_SANDBOX_API_KEY },
    });
    expect(response.status).toBe(200);
  });

  it("accepts every configured key", async () => {
    const multi = await startSandbox({ port: 0, apiKeys: ["key-a", "key-b"] });
    try {
      expect(multi.apiKey).toBe("key-a");
      expect((await call(multi, "GET", "/availability", { apiKey: "key-b" })).status).toBe(200);
      expect(
        (await call(multi, "GET", "/availability", { apiKey: DEFAULT_SANDBOX_API_KEY })).status,
      ).toBe(401);
    } finally {
      await multi.close();
    }
  });

  it("answers 403 to collections when collection is disabled, and to disbursements likewise", async () => {
    sandbox.setCollectionsEnabled(false);
    const collect = await call(sandbox, "POST", "/collect", {
      body: { amount: 100, phoneNumber: "237670000001" },
    });
    expect(collect.status).toBe(403);
    expect(errorOf(collect.json)).toMatchObject({ details: [{ reason: "COLLECTION_DISABLED" }] });
    const disburse = await call(sandbox, "POST", "/disburse", {
      body: { amount: 100, phoneNumber: "237670000001" },
    });
    expect(disburse.status).toBe(201);

    sandbox.setDisbursementsEnabled(false);
    const refused = await call(sandbox, "POST", "/disburse", {
      body: { amount: 100, phoneNumber: "237670000001" },
    });
    expect(refused.status).toBe(403);
    expect(errorOf(refused.json)).toMatchObject({ details: [{ reason: "DISBURSEMENT_DISABLED" }] });
    expect(sandbox.snapshot().payments).toHaveLength(1);
  });

  it("answers 403 OPERATION_SUSPENDED for a suspended operator and shows it in availability", async () => {
    sandbox.setAvailability("orange", "disbursement", "SUSPENDED");
    const refused = await call(sandbox, "POST", "/disburse", {
      body: { amount: 100, phoneNumber: "237690000001" },
    });
    expect(refused.status).toBe(403);
    expect(errorOf(refused.json).details).toEqual([
      {
        reason: "OPERATION_SUSPENDED",
        operator: "orange",
        type: "disbursement",
        status: "SUSPENDED",
      },
    ]);
    const mtn = await call(sandbox, "POST", "/disburse", {
      body: { amount: 100, phoneNumber: "237670000001" },
    });
    expect(mtn.status).toBe(201);
    const orangeCollect = await call(sandbox, "POST", "/collect", {
      body: { amount: 100, phoneNumber: "237690000001" },
    });
    expect(orangeCollect.status).toBe(201);
    const availability = AvailabilitySchema.parse(
      (await call(sandbox, "GET", "/availability")).json,
    );
    expect(
      availability.find((e) => e.operator === "orange" && e.operation.type === "disbursement")
        ?.operation.status,
    ).toBe("SUSPENDED");
  });

  it("answers 404 to a payment for a number with no account", async () => {
    for (const path of ["/disburse", "/collect"]) {
      const response = await call(sandbox, "POST", path, {
        body: { amount: 100, phoneNumber: "237690000004" },
      });
      expect(response.status).toBe(404);
      expect(errorOf(response.json).details).toEqual([
        { field: "phoneNumber", problem: "has no registered mobile money account" },
      ]);
    }
    expect(sandbox.snapshot().payments).toHaveLength(0);
  });

  it("answers 404 to unknown routes and 405 with Allow to a wrong method", async () => {
    const unknown = await call(sandbox, "GET", "/payments");
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown.json).statusCode).toBe(404);
    expect((await call(sandbox, "GET", "/collect/")).status).toBe(404);

    const wrong = await call(sandbox, "GET", "/disburse");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe("POST");
    expect(errorOf(wrong.json).statusCode).toBe(405);
    expect((await call(sandbox, "DELETE", "/payments/pay_1")).status).toBe(405);
  });

  it("records every API request in order with its parsed body and key", async () => {
    await call(sandbox, "POST", "/disburse", {
      body: { amount: 100, phoneNumber: "237670000001" },
    });
    await call(sandbox, "GET", "/availability?fresh=1", { apiKey: null });
    await call(sandbox, "GET", "/_sandbox/state");
    expect(sandbox.requests).toEqual([
      expect.objectContaining({
        method: "POST",
        path: "/disburse",
        body: { amount: 100, phoneNumber: "237670000001" },
        apiKey: DEFAULT_SANDBOX_API_KEY,
      }),
      expect.objectContaining({
        method: "GET",
        path: "/availability",
        query: "?fresh=1",
        body: undefined,
      }),
    ]);
    expect(sandbox.requests[1]?.apiKey).toBeUndefined();
    expect(sandbox.countRequests({ method: "post", path: "/disburse" })).toBe(1);
    expect(sandbox.countRequests({ path: /^\/avail/ })).toBe(1);
    expect(sandbox.countRequests()).toBe(2);
  });
});
