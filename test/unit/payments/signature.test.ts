import { generateKeyPairSync, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  canonicalString,
  DEFAULT_MAX_SKEW_MS,
  headerValue,
  loadPrivateKey,
  loadPublicKey,
  pathAndQueryOf,
  SIGNATURE_HEADER,
  signParts,
  TIMESTAMP_HEADER,
  type VerifyInput,
  verifyParts,
} from "../../../src/payments/signature.js";

function rsaPair() {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
}

const pair = rsaPair();
const privateKey = loadPrivateKey(pair.privateKey);
const publicKey = loadPublicKey(pair.publicKey);
const otherPrivateKey = loadPrivateKey(rsaPair().privateKey);

const NOW_MS = 1_750_000_000_000;
const REQUEST = {
  method: "POST",
  pathAndQuery: "/disburse?trace=1",
  body: JSON.stringify({ amount: 5000, phoneNumber: "237670000001", note: "café ✓" }),
};

/** Headers signed for REQUEST at NOW_MS, as verifyParts input, with `changes` applied. */
function signedInput(changes: Partial<VerifyInput> = {}): VerifyInput {
  const headers = signParts(privateKey, { ...REQUEST, timestampMs: NOW_MS });
  return {
    publicKey,
    signature: headers[SIGNATURE_HEADER],
    timestamp: headers[TIMESTAMP_HEADER],
    ...REQUEST,
    nowMs: NOW_MS,
    ...changes,
  };
}

describe("canonicalString", () => {
  it("is timestampMs LF METHOD LF pathAndQuery LF body, the method in upper case", () => {
    const canonical = canonicalString({
      timestampMs: 1_700_000_000_123,
      method: "post",
      pathAndQuery: "/payments/abc?x=1",
      body: '{"a":1}',
    });
    expect(canonical).toBe('1700000000123\nPOST\n/payments/abc?x=1\n{"a":1}');
  });

  it("ends with an empty line for a GET without a body", () => {
    const canonical = canonicalString({
      timestampMs: 1,
      method: "GET",
      pathAndQuery: "/",
      body: "",
    });
    expect(canonical).toBe("1\nGET\n/\n");
  });
});

describe("signParts and verifyParts", () => {
  it("names the headers x-sig and x-sig-timestamp (lower case, as node:http gives them)", () => {
    expect(SIGNATURE_HEADER).toBe("x-sig");
    expect(TIMESTAMP_HEADER).toBe("x-sig-timestamp");
    const headers = signParts(privateKey, { ...REQUEST, timestampMs: NOW_MS });
    expect(Object.keys(headers).sort()).toEqual(["x-sig", "x-sig-timestamp"]);
    expect(headers[TIMESTAMP_HEADER]).toBe(String(NOW_MS));
  });

  it("signs with RS256: a base64 signature as long as the 2048-bit key", () => {
    const signature = signParts(privateKey, { ...REQUEST, timestampMs: NOW_MS })[SIGNATURE_HEADER];
    expect(signature).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(signature ?? "", "base64")).toHaveLength(256);
  });

  it("verifies what it signed", () => {
    expect(verifyParts(signedInput())).toBeNull();
  });

  it("verifies what it signed at the current time when no time is given", () => {
    const headers = signParts(privateKey, REQUEST);
    const input = { publicKey, ...REQUEST };
    expect(
      verifyParts({
        ...input,
        signature: headers[SIGNATURE_HEADER],
        timestamp: headers[TIMESTAMP_HEADER],
      }),
    ).toBeNull();
  });

  it("verifies whatever the case of the method", () => {
    expect(verifyParts(signedInput({ method: "post" }))).toBeNull();
  });

  it.each([
    ["the body", { body: REQUEST.body.replace("5000", "50000") }],
    ["the body, by one trailing space", { body: `${REQUEST.body} ` }],
    ["the method", { method: "PUT" }],
    ["the path", { pathAndQuery: "/collect?trace=1" }],
    ["the query", { pathAndQuery: "/disburse?trace=2" }],
    ["the path, by dropping the query", { pathAndQuery: "/disburse" }],
    ["the timestamp, by one millisecond", { timestamp: String(NOW_MS + 1) }],
  ] satisfies ReadonlyArray<readonly [string, Partial<VerifyInput>]>)(
    "refuses a signature when %s was tampered with",
    (_what, changes) => {
      expect(verifyParts(signedInput(changes))).toBe("mismatch");
    },
  );

  it("refuses a signature made with another key", () => {
    const headers = signParts(otherPrivateKey, { ...REQUEST, timestampMs: NOW_MS });
    expect(verifyParts(signedInput({ signature: headers[SIGNATURE_HEADER] }))).toBe("mismatch");
  });

  it.each([
    ["random bytes", randomBytes(256).toString("base64")],
    ["text that is not base64", "not base64 at all!!"],
    ["a truncated signature", (signedInput().signature ?? "").slice(0, 40)],
    ["HTML", "<script>alert(1)</script>"],
  ])("refuses %s as the signature", (_what, signature) => {
    expect(verifyParts(signedInput({ signature }))).toBe("mismatch");
  });

  it.each([
    ["no signature", { signature: undefined }],
    ["an empty signature", { signature: "" }],
    ["no timestamp", { timestamp: undefined }],
    ["an empty timestamp", { timestamp: "" }],
    ["neither header", { signature: undefined, timestamp: undefined }],
  ] satisfies ReadonlyArray<readonly [string, Partial<VerifyInput>]>)(
    "reports %s as missing",
    (_what, changes) => {
      expect(verifyParts(signedInput(changes))).toBe("missing");
    },
  );

  it.each(["abc", "-1", "1.5", "1e12", ` ${NOW_MS}`, "12345678901234567", "０"])(
    "reports the timestamp %j as bad",
    (timestamp) => {
      expect(verifyParts(signedInput({ timestamp }))).toBe("bad-timestamp");
    },
  );

  it("accepts a timestamp exactly 5 minutes old or ahead, and no further", () => {
    expect(DEFAULT_MAX_SKEW_MS).toBe(300_000);
    expect(verifyParts(signedInput({ nowMs: NOW_MS + DEFAULT_MAX_SKEW_MS }))).toBeNull();
    expect(verifyParts(signedInput({ nowMs: NOW_MS - DEFAULT_MAX_SKEW_MS }))).toBeNull();
    expect(verifyParts(signedInput({ nowMs: NOW_MS + DEFAULT_MAX_SKEW_MS + 1 }))).toBe("stale");
    expect(verifyParts(signedInput({ nowMs: NOW_MS - DEFAULT_MAX_SKEW_MS - 1 }))).toBe("stale");
  });

  it("refuses a replay days later, even with a good signature", () => {
    expect(verifyParts(signedInput({ nowMs: NOW_MS + 3 * 86_400_000 }))).toBe("stale");
  });

  it("honours a custom maximum skew", () => {
    expect(verifyParts(signedInput({ nowMs: NOW_MS + 1001, maxSkewMs: 1000 }))).toBe("stale");
    expect(verifyParts(signedInput({ nowMs: NOW_MS + 1000, maxSkewMs: 1000 }))).toBeNull();
  });

  it("checks the timestamp before the signature", () => {
    expect(verifyParts(signedInput({ nowMs: NOW_MS + 600_000, signature: "garbage" }))).toBe(
      "stale",
    );
  });
});

describe("pathAndQueryOf", () => {
  it.each([
    ["https://api.example.com/payments/abc?x=1", "/payments/abc?x=1"],
    ["https://api.example.com", "/"],
    ["http://127.0.0.1:8080/webhooks/payments", "/webhooks/payments"],
    ["/payments/abc?x=1&y=2", "/payments/abc?x=1&y=2"],
    ["https://api.example.com/a#fragment", "/a"],
  ])("takes %j as %j", (url, expected) => {
    expect(pathAndQueryOf(url)).toBe(expected);
  });

  it("reads a URL object too", () => {
    expect(pathAndQueryOf(new URL("https://api.example.com/data/userinfo/237670000001?a=b"))).toBe(
      "/data/userinfo/237670000001?a=b",
    );
  });
});

describe("headerValue", () => {
  it.each([
    ["abc", "abc"],
    [["first", "second"], "first"],
    [[], undefined],
    [undefined, undefined],
  ] satisfies ReadonlyArray<readonly [string | string[] | undefined, string | undefined]>)(
    "reads %j as %j",
    (value, expected) => {
      expect(headerValue(value)).toBe(expected);
    },
  );
});
