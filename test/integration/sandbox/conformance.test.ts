/**
 * The sandbox against the real service's published documents (test/fixtures/nkwa-pay):
 * every answer it gives conforms to the OpenAPI document's schemas, and its payments have
 * the same fields as the published examples. The sandbox is written from those documents,
 * not from our client, so this is what keeps it honest.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type SandboxHandle, startSandbox } from "../../../src/sandbox/index.js";
import { OpenApiDocument } from "../../support/openapi.js";
import { type CallResult, call } from "./helpers.js";

const FIXTURES = new URL("../../fixtures/nkwa-pay/", import.meta.url);
const openapi = new OpenApiDocument(new URL("openapi.json", FIXTURES));

/** The published example answer of a request, by its name in the collection. */
function publishedExample(requestName: string): Record<string, unknown> {
  const text = readFileSync(new URL("collections.json", FIXTURES), "utf8");
  const Item = z.looseObject({
    name: z.string().optional(),
    item: z.array(z.unknown()).optional(),
    response: z.array(z.looseObject({ body: z.string() })).optional(),
  });
  const find = (node: unknown): string | undefined => {
    const item = Item.parse(node);
    if (item.name === requestName && item.response?.[0]) return item.response[0].body;
    for (const child of item.item ?? []) {
      const found = find(child);
      if (found) return found;
    }
    return undefined;
  };
  const body = find(JSON.parse(text));
  if (!body) throw new Error(`no published example for ${requestName}`);
  return z.record(z.string(), z.unknown()).parse(JSON.parse(body));
}

let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, settleDelayMs: 20, rateLimitPerMinute: 0 });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

function expectConforms(documentPath: string, method: string, answer: CallResult): void {
  const schema = openapi.responseSchema(method, documentPath, answer.status);
  expect(openapi.problems(schema, answer.json)).toEqual([]);
}

describe("the sandbox against the published OpenAPI document", () => {
  it("catches an answer that breaks the document (the check can fail)", () => {
    const schema = openapi.responseSchema("GET", "/payments/{id}", 200);
    expect(openapi.problems(schema, { id: 7, status: "done", amount: "5000" })).toEqual([
      '(body).amount: expected integer, got "5000"',
      "(body).id: expected string, got 7",
      '(body).status: "done" is not one of ["pending","success","failed","canceled"]',
    ]);
  });

  it.each(["/disburse", "/collect"] as const)("answers POST %s 201 as documented", async (path) => {
    const answer = await call(sandbox, "POST", path, {
      body: { amount: 5000, phoneNumber: "237670000001" },
    });
    expect(answer.status).toBe(201);
    expectConforms(path, "POST", answer);
  });

  it("answers GET /payments/{id} 200 as documented, pending and settled", async () => {
    const created = await call(sandbox, "POST", "/disburse", {
      body: { amount: 5000, phoneNumber: "237670000001" },
    });
    const { id } = z.object({ id: z.string() }).parse(created.json);
    expectConforms("/payments/{id}", "GET", await call(sandbox, "GET", `/payments/${id}`));
    sandbox.forceStatus(id, "success");
    expectConforms("/payments/{id}", "GET", await call(sandbox, "GET", `/payments/${id}`));
  });

  it("answers GET /availability 200 as documented, with an operator suspended", async () => {
    sandbox.setAvailability("orange", "disbursement", "SUSPENDED");
    const answer = await call(sandbox, "GET", "/availability");
    expect(answer.status).toBe(200);
    expectConforms("/availability", "GET", answer);
  });

  it("answers every documented error as an HttpError", async () => {
    const badBody = { amount: -1, phoneNumber: "12" };
    const pay = { amount: 5000, phoneNumber: "237670000001" };
    expectConforms(
      "/disburse",
      "POST",
      await call(sandbox, "POST", "/disburse", { body: badBody }),
    );
    expectConforms("/collect", "POST", await call(sandbox, "POST", "/collect", { body: badBody }));
    const noKey = await call(sandbox, "POST", "/disburse", { body: pay, apiKey: null });
    expect(noKey.status).toBe(401);
    expectConforms("/disburse", "POST", noKey);
    expectConforms(
      "/availability",
      "GET",
      await call(sandbox, "GET", "/availability", { apiKey: "x" }),
    );
    const missing = await call(sandbox, "GET", "/payments/00000000-0000-4000-8000-000000000000");
    expect(missing.status).toBe(404);
    expectConforms("/payments/{id}", "GET", missing);
    sandbox.setCollectionsEnabled(false);
    const disabled = await call(sandbox, "POST", "/collect", { body: pay });
    expect(disabled.status).toBe(403);
    expectConforms("/collect", "POST", disabled);
  });
});

describe("the sandbox against the published examples", () => {
  it("sends a payment with the same fields as the real service's 201 example, description null", async () => {
    const example = publishedExample("Disburse Payment");
    const answer = await call(sandbox, "POST", "/disburse", {
      body: { amount: 5000, phoneNumber: "237650000000" },
    });
    const payment = z.record(z.string(), z.unknown()).parse(answer.json);
    expect(Object.keys(payment).sort()).toEqual(Object.keys(example).sort());
    expect(payment.description).toBeNull();
    expect(example.description).toBeNull();
    expect(typeof payment.merchantId).toBe("number");
    expect(Number.isInteger(payment.merchantId)).toBe(true);
  });

  it("answers the user info of spec section 2.4: a first and a last name", async () => {
    const answer = await call(sandbox, "GET", "/data/userinfo/237670000001");
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ firstName: expect.any(String), lastName: expect.any(String) });
  });
});
