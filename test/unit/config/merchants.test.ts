import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/config/index.js";
import { fieldName, loadMerchants, parseMerchants } from "../../../src/config/merchants.js";

const TOKEN = "123456789:AAH-abcdefghijklmnopqrstuvwxyz_0123";
const ENV: NodeJS.ProcessEnv = { TELEGRAM_BOT_TOKEN: TOKEN, REDIS_KEY_PREFIX: "pb:" };

const acme = {
  id: "acme",
  name: "Acme SARL",
  paymentApiKey: "key-acme",
  paymentApiBaseUrl: "https://api.example.com",
  staff: "111:admin,222:payer",
};

function problemsOf(json: unknown, env: NodeJS.ProcessEnv = ENV): readonly string[] {
  try {
    parseMerchants(json, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

const dir = mkdtempSync(join(tmpdir(), "merchants-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("parseMerchants", () => {
  it("names each variable in camelCase", () => {
    expect(fieldName("PAYMENT_API_KEY")).toBe("paymentApiKey");
    expect(fieldName("APPROVAL_THRESHOLD_XAF")).toBe("approvalThresholdXaf");
  });

  it("builds each merchant's configuration from its fields, under its own hash-tagged prefix", () => {
    const [first, second] = parseMerchants(
      [
        { ...acme, approvalThresholdXaf: 50_000, timeZone: "Africa/Lagos", digestHour: 8 },
        {
          id: "bravo-2",
          name: "Bravo",
          paymentApiKey: "key-bravo",
          paymentApiBaseUrl: "https://other.example.com",
          staff: [
            { userId: 111, role: "viewer" },
            { userId: 333, role: "admin" },
          ],
          language: "fr",
        },
      ],
      ENV,
    );
    expect(first?.config.payment.apiKey).toBe("key-acme");
    expect(first?.config.rules.approvalThresholdXaf).toBe(50_000);
    expect(first?.config.timeZone).toBe("Africa/Lagos");
    expect(first?.config.reports.digestHour).toBe(8);
    expect(first?.config.redis.keyPrefix).toBe("pb:{m:acme}:");
    expect(second?.config.redis.keyPrefix).toBe("pb:{m:bravo-2}:");
    expect(second?.config.payment.baseUrl).toBe("https://other.example.com");
    expect(second?.language).toBe("fr");
    // One person, a role per merchant.
    expect(first?.config.staff).toContainEqual({ userId: 111, role: "admin" });
    expect(second?.config.staff).toContainEqual({ userId: 111, role: "viewer" });
    expect(second?.config.telegram.token).toBe(TOKEN);
  });

  it("never takes a merchant's own variables from the environment", () => {
    const problems = problemsOf([{ id: "acme", name: "Acme", staff: "1:admin" }], {
      ...ENV,
      PAYMENT_API_KEY: "the-env-key",
      PAYMENT_API_BASE_URL: "https://api.example.com",
    });
    expect(problems).toContain(
      'merchant "acme" paymentApiKey: required; generate an API key in the merchant portal',
    );
  });

  it("names the merchant and the field of every problem, and reports them all at once", () => {
    const problems = problemsOf([
      { ...acme, approvalThresholdXaf: -5, timeZone: "Mars/Olympus" },
      { ...acme, id: "bravo", staff: "12:payer", paymentApiKey: undefined },
      { ...acme, id: "Not An Id" },
      { ...acme, id: "delta", paymentApiKye: "typo" },
      { ...acme, id: "acme" },
    ]);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^merchant "acme" approvalThresholdXaf: must be a whole number/),
        expect.stringMatching(/^merchant "acme" timeZone: must be an IANA time zone/),
        expect.stringMatching(/^merchant "bravo" paymentApiKey: required/),
        expect.stringMatching(/^merchant "bravo" staff: needs at least one admin/),
        expect.stringMatching(/^merchant "Not An Id" id: must be 2-32 characters/),
        expect.stringMatching(/^merchant "delta" paymentApiKye: not a merchant setting/),
        'merchant "acme" id: used twice; every merchant needs its own id',
      ]),
    );
  });

  it("reports a problem of the shared environment once, not per merchant", () => {
    const problems = problemsOf([acme, { ...acme, id: "bravo" }], {
      REDIS_KEY_PREFIX: "pb:",
      HTTP_PORT: "nope",
    });
    expect(problems.filter((problem) => problem.startsWith("HTTP_PORT"))).toHaveLength(1);
    expect(problems.filter((problem) => problem.startsWith("TELEGRAM_BOT_TOKEN"))).toHaveLength(1);
  });

  it("reads a secret from the file a …File field names", () => {
    const keyFile = join(dir, "acme-key");
    writeFileSync(keyFile, "key-from-file\n");
    const [merchant] = parseMerchants(
      [{ ...acme, paymentApiKey: undefined, paymentApiKeyFile: keyFile }],
      ENV,
    );
    expect(merchant?.config.payment.apiKey).toBe("key-from-file");
    expect(problemsOf([{ ...acme, paymentApiKeyFile: keyFile }])).toContain(
      'merchant "acme" paymentApiKey, paymentApiKeyFile: both are set; keep one (the file, for a secret)',
    );
    expect(problemsOf([{ ...acme, id: "bad", eventsSecretFile: join(dir, "missing") }])).toEqual([
      `merchant "bad" eventsSecretFile: cannot read "${join(dir, "missing")}" (ENOENT)`,
    ]);
  });

  it("refuses what is not a non-empty list", () => {
    expect(problemsOf({ merchants: [] })[0]).toMatch(/^MERCHANTS_FILE: must be a JSON list/);
    expect(problemsOf([])[0]).toMatch(/^MERCHANTS_FILE: must be a JSON list/);
  });
});

describe("merchants.example.json", () => {
  it("passes the checks once its secret files exist", () => {
    const { publicKey } = generateKeyPairSync("ed25519");
    const pem = publicKey.export({ type: "spki", format: "pem" }).toString();
    const files: Record<string, string> = {
      paymentApiKeyFile: "key-from-a-file",
      paymentSignaturePublicKeyFile: pem,
      eventsSecretFile: `whsec_${Buffer.alloc(32, 7).toString("base64")}`,
    };
    const example: Array<Record<string, unknown>> = JSON.parse(
      readFileSync("merchants.example.json", "utf8"),
    );
    const entries = example.map((entry) =>
      Object.fromEntries(
        Object.entries(entry).map(([field, value]) => {
          const text = files[field];
          if (text === undefined) return [field, value];
          const path = join(dir, `${String(entry.id)}-${field}`);
          writeFileSync(path, text);
          return [field, path];
        }),
      ),
    );
    const merchants = parseMerchants(entries, ENV);
    expect(merchants.map((merchant) => merchant.id)).toEqual(["acme-logistics", "bakery-2"]);
    expect(merchants[0]?.config.payment.apiKey).toBe("key-from-a-file");
    expect(merchants[0]?.language).toBe("fr");
  });
});

describe("loadMerchants", () => {
  it("reads MERCHANTS_FILE and says what is wrong with the file itself", () => {
    const file = join(dir, "merchants.json");
    writeFileSync(file, JSON.stringify([acme]));
    const loaded = loadMerchants({ ...ENV, MERCHANTS_FILE: file });
    expect(loaded.merchants.map((merchant) => merchant.id)).toEqual(["acme"]);
    writeFileSync(file, "[{");
    expect(() => loadMerchants({ ...ENV, MERCHANTS_FILE: file })).toThrow(/is not JSON/);
    expect(() => loadMerchants({ ...ENV, MERCHANTS_FILE: join(dir, "none.json") })).toThrow(
      /cannot read .* \(ENOENT\)/,
    );
  });
});
