import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseStaff, type RunMode } from "../../../src/config/index.js";
import { loadPrivateKey, loadPublicKey } from "../../../src/payments/signature.js";

const TOKEN = "123456789:AAH-abcdefghijklmnopqrstuvwxyz_0123";

/** Everything `start` needs. */
const START_ENV: NodeJS.ProcessEnv = {
  TELEGRAM_BOT_TOKEN: TOKEN,
  PAYMENT_API_KEY: "key-123",
  PAYMENT_API_BASE_URL: "https://api.example.com",
  STAFF: "111:admin",
};

/** The problems of the ConfigError that `loadConfig` throws; fails when it throws none. */
function problemsOf(env: NodeJS.ProcessEnv, mode: RunMode = "demo"): readonly string[] {
  try {
    loadConfig(env, mode);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected loadConfig to throw a ConfigError");
}

describe("loadConfig", () => {
  it.each<RunMode>(["demo", "sandbox"])(
    "fills in every default from an empty environment in %s mode",
    (mode) => {
      expect(loadConfig({}, mode)).toEqual({
        telegram: {
          token: undefined,
          apiRoot: "https://api.telegram.org",
          webhookUrl: undefined,
          webhookSecret: undefined,
          webhookReplyMs: 50,
        },
        payment: {
          apiKey: undefined,
          env: "sandbox",
          baseUrl: undefined,
          rateLimitPerMinute: 100,
          webhookPath: "/webhooks/payments",
          signaturePublicKey: undefined,
          requestSigningKey: undefined,
          webhookUnsigned: false,
          webhookRereadsPerMinute: 50,
          timeoutMs: 15_000,
        },
        redis: {
          target: { kind: "url", url: "redis://127.0.0.1:6379" },
          keyPrefix: "payout-bot:",
          sharedKeyPrefix: "payout-bot:",
          durability: "off",
          durabilityTimeoutMs: 2000,
        },
        reports: { digestHour: undefined, alertChatId: undefined, availabilityCheckMs: 120_000 },
        schedules: {
          defaultTime: "09:00",
          catchUpMs: 86_400_000,
          retryMs: 21_600_000,
          reminderMs: 86_400_000,
        },
        staff: [],
        http: { host: "0.0.0.0", port: 8080 },
        // Sandbox rate 100/min at a 95% share: 5 requests a window left to interactive /pay.
        batch: {
          maxRows: 1000,
          maxBytes: 1_000_000,
          previewTtlMs: 3_600_000,
          leave: 5,
          stuckAfterMs: 24 * 3_600_000,
        },
        confirmationTtlSeconds: 300,
        buttonPressesPerMinute: 60,
        statusPollIntervalMs: 5000,
        stuckAfterMs: 24 * 3_600_000,
        strandedAfterMs: 300_000,
        retentionMs: 90 * 86_400_000,
        timeZone: "Africa/Douala",
        rules: {
          approvalThresholdXaf: undefined,
          approvalBands: [],
          approvalTtlMs: 24 * 3_600_000,
          payerDailyLimitXaf: undefined,
          merchantDailyLimitXaf: undefined,
          duplicateWindowMs: 1440 * 60_000,
          timeZone: "Africa/Douala",
        },
        webApp: { url: undefined, authMaxAgeSeconds: 3600 },
        metrics: { serve: undefined },
        logLevel: "info",
      });
    },
  );

  it("treats empty and blank values as unset", () => {
    const config = loadConfig({ HTTP_PORT: "", LOG_LEVEL: "  ", PAYMENT_ENV: "" }, "demo");
    expect(config.http.port).toBe(8080);
    expect(config.logLevel).toBe("info");
    expect(config.payment.env).toBe("sandbox");
  });

  it("reads every variable that is set, trimmed, and converts hours and days to ms", () => {
    const config = loadConfig(
      {
        ...START_ENV,
        TELEGRAM_API_ROOT: "http://127.0.0.1:9000",
        TELEGRAM_WEBHOOK_URL: "https://bot.example.com/telegram",
        TELEGRAM_WEBHOOK_SECRET: "s3cret_-X",
        PAYMENT_WEBHOOK_PATH: "/hooks/pay.v1",
        REDIS_URL: "rediss://cache.example.com:6380/2",
        REDIS_KEY_PREFIX: "bot:test.1-",
        HTTP_HOST: " 127.0.0.1 ",
        HTTP_PORT: " 3000 ",
        CONFIRMATION_TTL_SECONDS: "60",
        STATUS_POLL_INTERVAL_MS: "250",
        PAYOUT_STUCK_AFTER_HOURS: "2",
        PAYOUT_RETENTION_DAYS: "7",
        PAYOUT_STRANDED_AFTER_SECONDS: "30",
        PAYMENT_TIMEOUT_MS: "5000",
        TIME_ZONE: " africa/lagos ",
        LOG_LEVEL: "debug",
        TELEGRAM_WEBHOOK_REPLY_MS: "0",
      },
      "start",
    );
    expect(config.telegram).toEqual({
      token: TOKEN,
      apiRoot: "http://127.0.0.1:9000",
      webhookUrl: "https://bot.example.com/telegram",
      webhookSecret: "s3cret_-X",
      webhookReplyMs: 0,
    });
    expect(config.payment).toMatchObject({
      apiKey: "key-123",
      baseUrl: "https://api.example.com",
      webhookPath: "/hooks/pay.v1",
      timeoutMs: 5000,
    });
    expect(config.redis).toEqual({
      target: { kind: "url", url: "rediss://cache.example.com:6380/2" },
      keyPrefix: "bot:test.1-",
      sharedKeyPrefix: "bot:test.1-",
      durability: "off",
      durabilityTimeoutMs: 2000,
    });
    expect(config.staff).toEqual([{ userId: 111, role: "admin" }]);
    expect(config.http).toEqual({ host: "127.0.0.1", port: 3000 });
    expect(config.confirmationTtlSeconds).toBe(60);
    expect(config.statusPollIntervalMs).toBe(250);
    expect(config.stuckAfterMs).toBe(2 * 3_600_000);
    expect(config.retentionMs).toBe(7 * 86_400_000);
    // An IANA zone, in its canonical spelling.
    expect(config.timeZone).toBe("Africa/Lagos");
    expect(config.strandedAfterMs).toBe(30_000);
    expect(config.logLevel).toBe("debug");
  });

  it.each([
    ["sandbox", 100],
    ["production", 300],
  ] as const)("allows %s %i Payment API calls per minute", (paymentEnv, perMinute) => {
    const config = loadConfig({ PAYMENT_ENV: paymentEnv }, "demo");
    expect(config.payment.env).toBe(paymentEnv);
    expect(config.payment.rateLimitPerMinute).toBe(perMinute);
  });

  const badValues: ReadonlyArray<readonly [name: string, value: string, says: string]> = [
    ["TELEGRAM_BOT_TOKEN", "not-a-token", "@BotFather"],
    ["TELEGRAM_BOT_TOKEN", "123456:short", "@BotFather"],
    ["TELEGRAM_API_ROOT", "ftp://api.telegram.org", "http(s) URL"],
    ["TELEGRAM_API_ROOT", "api.telegram.org", "http(s) URL"],
    ["TELEGRAM_WEBHOOK_SECRET", "has spaces in it", "A-Z, a-z, 0-9"],
    ["TELEGRAM_WEBHOOK_SECRET", "x".repeat(257), "1-256 characters"],
    ["TELEGRAM_WEBHOOK_REPLY_MS", "1001", "from 0 to 1000"],
    ["TELEGRAM_WEBHOOK_REPLY_MS", "-1", "from 0 to 1000"],
    ["PAYMENT_ENV", "prod", '"sandbox" or "production"'],
    ["PAYMENT_ENV", "Production", '"sandbox" or "production"'],
    ["PAYMENT_API_BASE_URL", "api.example.com", "http(s) URL"],
    ["PAYMENT_WEBHOOK_PATH", "webhooks/payments", "starting with /"],
    ["PAYMENT_WEBHOOK_PATH", "/web hooks", "starting with /"],
    ["REDIS_URL", "http://127.0.0.1:6379", "redis://"],
    ["REDIS_KEY_PREFIX", "has space", "1-64 characters"],
    ["REDIS_KEY_PREFIX", "p".repeat(65), "1-64 characters"],
    ["HTTP_PORT", "abc", "from 0 to 65535"],
    ["HTTP_PORT", "65536", "from 0 to 65535"],
    ["HTTP_PORT", "-1", "from 0 to 65535"],
    ["HTTP_PORT", "80.5", "from 0 to 65535"],
    ["CONFIRMATION_TTL_SECONDS", "9", "from 10 to 86400"],
    ["CONFIRMATION_TTL_SECONDS", "86401", "from 10 to 86400"],
    ["STATUS_POLL_INTERVAL_MS", "99", "from 100 to 3600000"],
    ["PAYOUT_STUCK_AFTER_HOURS", "0", "from 1 to 720"],
    ["PAYOUT_RETENTION_DAYS", "3651", "from 1 to 3650"],
    ["PAYOUT_STRANDED_AFTER_SECONDS", "4", "from 5 to 86400"],
    ["PAYMENT_TIMEOUT_MS", "999", "from 1000 to 120000"],
    ["PAYMENT_TIMEOUT_MS", "120001", "from 1000 to 120000"],
    ["LOG_LEVEL", "verbose", "one of fatal, error"],
    ["TIME_ZONE", "Mars/Olympus_Mons", "IANA time zone"],
    ["TIME_ZONE", "WAT", "IANA time zone"],
    ["TIME_ZONE", "+01:00", "IANA time zone"],
    ["STAFF", "boss", "not id:role"],
  ];

  it.each(badValues)("reports %s=%j as its one problem", (name, value, says) => {
    // A bad webhook secret is only checked next to a URL; a URL alone is a problem of its own.
    const env: NodeJS.ProcessEnv = { [name]: value };
    const problems = problemsOf(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: `));
    expect(problems[0]).toContain(says);
  });

  it("reports a webhook URL that is not a URL", () => {
    const problems = problemsOf({
      TELEGRAM_WEBHOOK_URL: "bot.example.com/telegram",
      TELEGRAM_WEBHOOK_SECRET: "secret",
    });
    expect(problems).toEqual([expect.stringMatching(/^TELEGRAM_WEBHOOK_URL: .*http\(s\) URL/)]);
  });

  it.each([
    ["HTTP_PORT", "0"],
    ["HTTP_PORT", "65535"],
    ["CONFIRMATION_TTL_SECONDS", "10"],
    ["CONFIRMATION_TTL_SECONDS", "86400"],
    ["STATUS_POLL_INTERVAL_MS", "100"],
    ["STATUS_POLL_INTERVAL_MS", "3600000"],
    ["PAYOUT_STUCK_AFTER_HOURS", "720"],
    ["PAYOUT_RETENTION_DAYS", "1"],
    ["PAYOUT_STRANDED_AFTER_SECONDS", "5"],
    ["PAYMENT_TIMEOUT_MS", "1000"],
    ["PAYMENT_TIMEOUT_MS", "120000"],
    ["LOG_LEVEL", "silent"],
  ])("accepts %s=%s at the edge of its range", (name, value) => {
    expect(() => loadConfig({ [name]: value }, "demo")).not.toThrow();
  });

  it("reports several problems at once in one ConfigError", () => {
    const env = { HTTP_PORT: "abc", LOG_LEVEL: "loud", REDIS_URL: "nope", STAFF: "x:admin" };
    let thrown: unknown;
    try {
      loadConfig(env, "demo");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    if (!(thrown instanceof ConfigError)) return;
    expect(thrown.problems).toHaveLength(4);
    for (const name of ["HTTP_PORT", "LOG_LEVEL", "REDIS_URL", "STAFF"]) {
      expect(thrown.problems.some((problem) => problem.startsWith(`${name}: `))).toBe(true);
    }
    expect(thrown.name).toBe("ConfigError");
    expect(thrown.message).toMatch(/^Configuration is not valid \(4 problems\):\n {2}- /);
    expect(thrown.message).toContain(".env.example");
  });

  it("reports a bad value together with the values start mode is missing", () => {
    const problems = problemsOf({ HTTP_PORT: "abc" }, "start");
    expect(problems.map((problem) => problem.split(":")[0])).toEqual([
      "HTTP_PORT",
      "TELEGRAM_BOT_TOKEN",
      "PAYMENT_API_KEY",
      "PAYMENT_API_BASE_URL",
      "STAFF",
    ]);
  });

  it("says 1 problem, not 1 problems", () => {
    expect(() => loadConfig({ HTTP_PORT: "abc" }, "demo")).toThrow(/\(1 problem\):/);
  });

  describe("in start mode", () => {
    it("requires the bot token, the API key, the API base URL and one staff member", () => {
      const problems = problemsOf({}, "start");
      expect(problems).toHaveLength(4);
      expect(problems[0]).toMatch(/^TELEGRAM_BOT_TOKEN: required; .*@BotFather/);
      expect(problems[1]).toMatch(/^PAYMENT_API_KEY: required/);
      expect(problems[2]).toMatch(/^PAYMENT_API_BASE_URL: required/);
      expect(problems[3]).toMatch(/^STAFF: required; at least one admin/);
    });

    it.each(Object.keys(START_ENV))("reports %s alone when only it is missing", (name) => {
      const env = { ...START_ENV, [name]: undefined };
      const problems = problemsOf(env, "start");
      expect(problems).toEqual([expect.stringMatching(new RegExp(`^${name}: required`))]);
    });

    it("starts with everything it needs", () => {
      const config = loadConfig(START_ENV, "start");
      expect(config.telegram.token).toBe(TOKEN);
      expect(config.payment.apiKey).toBe("key-123");
    });

    it("does not require the start variables in demo or sandbox mode", () => {
      expect(() => loadConfig({}, "demo")).not.toThrow();
      expect(() => loadConfig({}, "sandbox")).not.toThrow();
    });
  });

  describe("in production", () => {
    const PRODUCTION = { ...START_ENV, PAYMENT_ENV: "production" };

    it("refuses to start without the key that verifies answers and callbacks", () => {
      expect(problemsOf(PRODUCTION, "start")).toEqual([
        expect.stringMatching(
          /^PAYMENT_SIGNATURE_PUBLIC_KEY: required in production.*PAYMENT_WEBHOOK_UNSIGNED=allow/,
        ),
      ]);
    });

    it("starts unsigned only when told so explicitly, and says so in the config", () => {
      const config = loadConfig({ ...PRODUCTION, PAYMENT_WEBHOOK_UNSIGNED: "allow" }, "start");
      expect(config.payment.webhookUnsigned).toBe(true);
      expect(config.payment.webhookRereadsPerMinute).toBe(150);
    });

    it("waits for durable Redis writes unless told not to", () => {
      const env = { ...PRODUCTION, PAYMENT_WEBHOOK_UNSIGNED: "allow" };
      expect(loadConfig(env, "start").redis).toMatchObject({
        durability: "auto",
        durabilityTimeoutMs: 2000,
      });
      expect(loadConfig({ ...env, REDIS_DURABILITY: "off" }, "start").redis.durability).toBe("off");
      expect(loadConfig(START_ENV, "start").redis.durability).toBe("off");
      expect(problemsOf({ ...env, REDIS_DURABILITY: "always" }, "start")).toEqual([
        expect.stringMatching(/^REDIS_DURABILITY: must be "auto"/),
      ]);
    });

    it("takes only allow as the opt-out", () => {
      expect(problemsOf({ ...PRODUCTION, PAYMENT_WEBHOOK_UNSIGNED: "yes" }, "start")).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^PAYMENT_WEBHOOK_UNSIGNED: must be "allow"/),
        ]),
      );
    });
  });

  it("refuses a Telegram webhook URL that is not https, except on loopback for the emulator", () => {
    const env = { ...START_ENV, TELEGRAM_WEBHOOK_SECRET: "s3cret" };
    expect(
      problemsOf({ ...env, TELEGRAM_WEBHOOK_URL: "http://bot.example.com/telegram" }, "start"),
    ).toEqual([expect.stringMatching(/^TELEGRAM_WEBHOOK_URL: must start with https:\/\//)]);
    const local = { ...env, TELEGRAM_WEBHOOK_URL: "http://127.0.0.1:8080/telegram" };
    expect(loadConfig(local, "start").telegram.webhookUrl).toBe("http://127.0.0.1:8080/telegram");
  });

  it("requires a webhook secret with a webhook URL, in every mode", () => {
    for (const mode of ["start", "demo", "sandbox"] as const) {
      const env = { ...START_ENV, TELEGRAM_WEBHOOK_URL: "https://bot.example.com/telegram" };
      expect(problemsOf(env, mode)).toEqual([
        expect.stringMatching(/^TELEGRAM_WEBHOOK_SECRET: required with TELEGRAM_WEBHOOK_URL/),
      ]);
    }
  });

  describe("STAFF", () => {
    it("reads a list of ids and roles, with spaces and empty items ignored", () => {
      const config = loadConfig(
        { STAFF: " 1:admin, 22:approver ,333:payer,,4444:viewer," },
        "demo",
      );
      expect(config.staff).toEqual([
        { userId: 1, role: "admin" },
        { userId: 22, role: "approver" },
        { userId: 333, role: "payer" },
        { userId: 4444, role: "viewer" },
      ]);
    });

    it.each([
      ["an unknown role", "1:boss"],
      ["a role in capitals", "1:Admin"],
      ["a name instead of an id", "alice:admin"],
      ["a negative id", "-1:admin"],
      ["a fractional id", "1.5:admin"],
      ["an id of 16 digits", "1234567890123456:admin"],
      ["no role", "1"],
      ["no id", ":admin"],
      ["spaces around the colon", "1 : admin"],
      ["a semicolon list", "1:admin;2:payer"],
    ])("refuses %s (%j)", (_what, raw) => {
      const { staff, problems } = parseStaff(raw);
      expect(staff).toEqual([]);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain("is not id:role");
    });

    it("keeps the good entries and reports each bad one", () => {
      const { staff, problems } = parseStaff("1:admin,2:boss,x:payer,3:viewer");
      expect(staff).toEqual([
        { userId: 1, role: "admin" },
        { userId: 3, role: "viewer" },
      ]);
      expect(problems).toEqual([
        expect.stringContaining('"2:boss"'),
        expect.stringContaining('"x:payer"'),
      ]);
    });

    it("reports a user listed twice, even with the same role, and keeps the first entry", () => {
      expect(parseStaff("7:admin,7:payer,7:admin")).toEqual({
        staff: [{ userId: 7, role: "admin" }],
        problems: ["user 7 is listed twice", "user 7 is listed twice"],
      });
      expect(problemsOf({ STAFF: "7:admin,7:payer" })).toEqual(["STAFF: user 7 is listed twice"]);
    });

    it("starts only with an admin on staff, and says so without repeating a bad entry", () => {
      const start = { ...START_ENV };
      expect(problemsOf({ ...start, STAFF: "5:payer,6:viewer" }, "start")).toEqual([
        "STAFF: needs at least one admin, e.g. STAFF=123456789:admin,987654321:payer",
      ]);
      expect(problemsOf({ ...start, STAFF: "5:boss" }, "start")).toEqual([
        'STAFF: "5:boss" is not id:role with a numeric Telegram user id and a role among admin, approver, payer, viewer',
      ]);
    });

    it.each([undefined, "", "  "])("gives no staff and no problem for %j", (raw) => {
      expect(parseStaff(raw)).toEqual({ staff: [], problems: [] });
    });
  });

  describe("PEM keys", () => {
    const { publicKey, privateKey } = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
    });
    const escaped = (pem: string) => pem.replace(/\n/g, "\\n");
    let dir = "";

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "config-test-"));
      writeFileSync(join(dir, "public.pem"), publicKey);
      writeFileSync(join(dir, "private.pem"), privateKey);
      writeFileSync(join(dir, "not-a-key.txt"), "hello\n");
      mkdirSync(join(dir, "a-directory"));
    });

    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    const forms = [
      ["PEM text", () => ({ pub: publicKey, priv: privateKey })],
      ["\\n-escaped PEM text", () => ({ pub: escaped(publicKey), priv: escaped(privateKey) })],
      ["a file path", () => ({ pub: join(dir, "public.pem"), priv: join(dir, "private.pem") })],
    ] as const;

    it.each(forms)("reads both keys given as %s", (_form, values) => {
      const { pub, priv } = values();
      const config = loadConfig(
        { PAYMENT_SIGNATURE_PUBLIC_KEY: pub, PAYMENT_REQUEST_SIGNING_KEY: priv },
        "demo",
      );
      const { signaturePublicKey, requestSigningKey } = config.payment;
      expect(signaturePublicKey?.trim()).toBe(publicKey.trim());
      expect(requestSigningKey?.trim()).toBe(privateKey.trim());
      // What config hands over must load as a key, not merely look like one.
      expect(loadPublicKey(signaturePublicKey ?? "").asymmetricKeyType).toBe("rsa");
      expect(loadPrivateKey(requestSigningKey ?? "").type).toBe("private");
    });

    it("refuses a private key where the public key belongs, and the other way round", () => {
      const problems = problemsOf({
        PAYMENT_SIGNATURE_PUBLIC_KEY: privateKey,
        PAYMENT_REQUEST_SIGNING_KEY: join(dir, "public.pem"),
      });
      expect(problems).toEqual([
        expect.stringMatching(/^PAYMENT_SIGNATURE_PUBLIC_KEY: expected a PEM public key/),
        expect.stringMatching(/^PAYMENT_REQUEST_SIGNING_KEY: expected a PEM private key/),
      ]);
    });

    it("refuses a path to a file that holds no key", () => {
      expect(problemsOf({ PAYMENT_SIGNATURE_PUBLIC_KEY: join(dir, "not-a-key.txt") })).toEqual([
        expect.stringMatching(/^PAYMENT_SIGNATURE_PUBLIC_KEY: expected a PEM public key/),
      ]);
    });

    it("refuses a value that is neither PEM text nor an existing file", () => {
      expect(problemsOf({ PAYMENT_REQUEST_SIGNING_KEY: join(dir, "missing.pem") })).toEqual([
        expect.stringMatching(/^PAYMENT_REQUEST_SIGNING_KEY: is neither PEM text nor the path/),
      ]);
    });

    it("refuses the path of a directory with a ConfigError, not a crash", () => {
      expect(problemsOf({ PAYMENT_SIGNATURE_PUBLIC_KEY: join(dir, "a-directory") })).toEqual([
        expect.stringMatching(/^PAYMENT_SIGNATURE_PUBLIC_KEY: .*readable file/),
      ]);
    });

    it("reports a bad key together with a bad value of another variable", () => {
      const problems = problemsOf({
        HTTP_PORT: "abc",
        PAYMENT_SIGNATURE_PUBLIC_KEY: join(dir, "missing.pem"),
      });
      expect(problems.map((problem) => problem.split(":")[0])).toEqual([
        "HTTP_PORT",
        "PAYMENT_SIGNATURE_PUBLIC_KEY",
      ]);
    });
  });
});
