import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  headerValue,
  loadPrivateKey,
  loadPublicKey,
  signParts,
  verifyParts,
} from "../../../src/payments/signature.js";
import { type SandboxHandle, startSandbox } from "../../../src/sandbox/index.js";
import { type CallResult, call } from "./helpers.js";

function verifyResponse(
  sandbox: SandboxHandle,
  method: string,
  pathAndQuery: string,
  response: CallResult,
  body = response.text,
) {
  return verifyParts({
    publicKey: loadPublicKey(sandbox.publicKeyPem),
    signature: headerValue(response.headers["x-sig"]),
    timestamp: headerValue(response.headers["x-sig-timestamp"]),
    method,
    pathAndQuery,
    body,
  });
}

describe("Sandbox response signatures", () => {
  let sandbox: SandboxHandle;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 0 });
  });
  afterAll(() => sandbox.close());

  it("signs success and error answers so the public key verifies them", async () => {
    const created = await call(sandbox, "POST", "/disburse", {
      body: { amount: 100, phoneNumber: "237670000001" },
    });
    expect(verifyResponse(sandbox, "POST", "/disburse", created)).toBeNull();

    const listed = await call(sandbox, "GET", "/availability?x=1");
    expect(verifyResponse(sandbox, "GET", "/availability?x=1", listed)).toBeNull();

    const unauthorized = await call(sandbox, "GET", "/data/userinfo/237670000001", {
      apiKey: null,
    });
    expect(unauthorized.status).toBe(401);
    expect(verifyResponse(sandbox, "GET", "/data/userinfo/237670000001", unauthorized)).toBeNull();
  });

  it("fails verification when the body, the path or the method is changed", async () => {
    const response = await call(sandbox, "GET", "/data/userinfo/237690000001");
    const tampered = response.text.replace("Aïcha", "Alice");
    expect(tampered).not.toBe(response.text);
    expect(verifyResponse(sandbox, "GET", "/data/userinfo/237690000001", response, tampered)).toBe(
      "mismatch",
    );
    expect(verifyResponse(sandbox, "GET", "/data/userinfo/237670000001", response)).toBe(
      "mismatch",
    );
    expect(verifyResponse(sandbox, "POST", "/data/userinfo/237690000001", response)).toBe(
      "mismatch",
    );
  });

  it("serves the same public key on the admin surface", async () => {
    const response = await call(sandbox, "GET", "/_sandbox/public-key");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toBe("application/x-pem-file");
    expect(response.text).toBe(sandbox.publicKeyPem);
    expect(response.text).toContain("BEGIN PUBLIC KEY");
  });

  it("sends no X-Sig when signResponses is false", async () => {
    const unsigned = await startSandbox({ port: 0, signResponses: false });
    try {
      const response = await call(unsigned, "GET", "/availability");
      expect(response.status).toBe(200);
      expect(response.headers["x-sig"]).toBeUndefined();
    } finally {
      await unsigned.close();
    }
  });
});

describe("Sandbox request signature enforcement", () => {
  const merchant = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const merchantPrivateKey = loadPrivateKey(
    merchant.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  );
  let sandbox: SandboxHandle;
  beforeAll(async () => {
    sandbox = await startSandbox({
      port: 0,
      rateLimitPerMinute: 0,
      requestVerifyKeyPem: merchant.publicKey.export({ type: "spki", format: "pem" }).toString(),
    });
  });
  afterAll(() => sandbox.close());

  const body = JSON.stringify({ amount: 100, phoneNumber: "237670000001" });

  it("accepts a request signed with the merchant's key", async () => {
    const headers = signParts(merchantPrivateKey, {
      method: "POST",
      pathAndQuery: "/disburse",
      body,
    });
    const response = await call(sandbox, "POST", "/disburse", { body, headers });
    expect(response.status).toBe(201);
  });

  it("answers 401 to an unsigned request", async () => {
    const response = await call(sandbox, "GET", "/availability");
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ details: [{ header: "X-Sig", problem: "missing" }] });
  });

  it("answers 401 and creates nothing when the signed body was changed", async () => {
    const before = sandbox.snapshot().payments.length;
    const headers = signParts(merchantPrivateKey, {
      method: "POST",
      pathAndQuery: "/disburse",
      body,
    });
    const changed = body.replace("100", "900000");
    const response = await call(sandbox, "POST", "/disburse", { body: changed, headers });
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ details: [{ header: "X-Sig", problem: "mismatch" }] });
    expect(sandbox.snapshot().payments).toHaveLength(before);
  });

  it("answers 401 to a stale signature", async () => {
    const headers = signParts(merchantPrivateKey, {
      method: "GET",
      pathAndQuery: "/availability",
      body: "",
      timestampMs: Date.now() - 60 * 60_000,
    });
    const response = await call(sandbox, "GET", "/availability", { headers });
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ details: [{ header: "X-Sig", problem: "stale" }] });
  });
});
