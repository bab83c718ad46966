import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createLogger,
  type Logger,
  maskPhone,
  REDACT_PATHS,
  redactToken,
  redactUrlCredentials,
  silentLogger,
} from "../../src/logger.js";

const BOT_TOKEN = "123456789:AAH-abcdefghijklmnopqrstuvwxyz_0123";
const REDACTED = "[redacted]";

const LogLineSchema = z.looseObject({ level: z.string(), msg: z.string().optional() });

/** A logger that writes to memory, and the lines it wrote (raw text and parsed JSON). */
function memoryLogger(level = "trace"): { log: Logger; raw: string[]; lines: () => unknown[] } {
  const raw: string[] = [];
  const log = createLogger({ level, destination: { write: (line: string) => raw.push(line) } });
  return { log, raw, lines: () => raw.map((line) => JSON.parse(line)) };
}

function onlyLine(lines: unknown[]): Record<string, unknown> {
  expect(lines).toHaveLength(1);
  return LogLineSchema.parse(lines[0]);
}

describe("createLogger", () => {
  it("writes JSON lines with the level as a word and no pid or hostname", () => {
    const { log, lines } = memoryLogger();
    log.info({ payoutId: "p1" }, "hello");
    const line = onlyLine(lines());
    expect(line).toMatchObject({ level: "info", payoutId: "p1", msg: "hello" });
    expect(line).not.toHaveProperty("pid");
    expect(line).not.toHaveProperty("hostname");
  });

  it("writes nothing under its level", () => {
    const { log, raw } = memoryLogger("warn");
    log.info("not written");
    log.warn("written");
    expect(raw).toHaveLength(1);
  });

  it.each(["apiKey", "token", "botToken", "secret", "webhookSecret", "privateKey", "password"])(
    "redacts %s at the top level, one level down and two levels down",
    (key) => {
      const { log, raw, lines } = memoryLogger();
      log.info({ [key]: "s3cr3t-top", config: { [key]: "s3cr3t-one" }, a: { b: { [key]: "x9" } } });
      expect(onlyLine(lines())).toMatchObject({
        [key]: REDACTED,
        config: { [key]: REDACTED },
        a: { b: { [key]: REDACTED } },
      });
      expect(raw.join("")).not.toMatch(/s3cr3t|x9/);
    },
  );

  it("redacts the X-API-Key, X-Sig and Telegram secret headers, in either case, one or two levels down", () => {
    const headers = {
      "x-api-key": "key-lower",
      "X-API-Key": "key-mixed",
      "x-sig": "sig-lower",
      "X-Sig": "sig-mixed",
      "x-telegram-bot-api-secret-token": "tg-secret",
      authorization: "Bearer abc",
      "content-type": "application/json",
    };
    const { log, raw, lines } = memoryLogger();
    log.info({ headers, req: { headers } }, "request");
    const redactedHeaders = {
      "x-api-key": REDACTED,
      "X-API-Key": REDACTED,
      "x-sig": REDACTED,
      "X-Sig": REDACTED,
      "x-telegram-bot-api-secret-token": REDACTED,
      authorization: REDACTED,
      "content-type": "application/json",
    };
    expect(onlyLine(lines())).toMatchObject({
      headers: redactedHeaders,
      req: { headers: redactedHeaders },
    });
    expect(raw.join("")).not.toMatch(/key-lower|key-mixed|sig-lower|sig-mixed|tg-secret|Bearer/);
  });

  it("redacts secrets bound to a child logger", () => {
    const { log, raw } = memoryLogger();
    log.child({ apiKey: "child-key" }).info("from the child");
    expect(raw.join("")).not.toContain("child-key");
    expect(raw.join("")).toContain(REDACTED);
  });

  it("keeps fields that are not secrets", () => {
    const { log, lines } = memoryLogger();
    log.info({ payoutId: "p1", amount: 5000, nested: { status: "pending" } });
    expect(onlyLine(lines())).toMatchObject({
      payoutId: "p1",
      amount: 5000,
      nested: { status: "pending" },
    });
  });

  it("redacts a bot token in the message and in its format arguments", () => {
    const { log, raw, lines } = memoryLogger();
    log.info(`GET https://api.telegram.org/bot${BOT_TOKEN}/getMe`);
    log.info("calling %s", `https://api.telegram.org/bot${BOT_TOKEN}/getMe`);
    const messages = lines().map((line) => LogLineSchema.parse(line).msg);
    expect(messages).toEqual([
      "GET https://api.telegram.org/bot<redacted-token>/getMe",
      "calling https://api.telegram.org/bot<redacted-token>/getMe",
    ]);
    expect(raw.join("")).not.toContain(BOT_TOKEN);
  });

  it("redacts a bot token in an error's message and stack", () => {
    const { log, raw, lines } = memoryLogger();
    const error = new Error(`request to https://api.telegram.org/bot${BOT_TOKEN}/getMe failed`);
    log.error({ err: error }, "Telegram call failed");
    log.error(error, "Telegram call failed");
    for (const line of lines()) {
      const err = z
        .object({ message: z.string(), stack: z.string() })
        .parse(LogLineSchema.extend({ err: z.unknown() }).parse(line).err);
      expect(err.message).toBe(
        "request to https://api.telegram.org/bot<redacted-token>/getMe failed",
      );
      expect(err.stack).toContain("bot<redacted-token>/getMe");
    }
    expect(raw).toHaveLength(2);
    expect(raw.join("")).not.toContain(BOT_TOKEN);
  });

  it("builds redaction paths for every key at the top level and below", () => {
    expect(REDACT_PATHS).toEqual(expect.arrayContaining(["apiKey", "*.apiKey", "*.*.apiKey"]));
    expect(REDACT_PATHS).toEqual(expect.arrayContaining(['*["x-sig"]', '*.*["x-sig"]']));
  });
});

describe("silentLogger", () => {
  it("has no level enabled", () => {
    expect(silentLogger.isLevelEnabled("fatal")).toBe(false);
  });
});

describe("maskPhone", () => {
  const cases: ReadonlyArray<readonly [phone: string, masked: string]> = [
    ["237670000001", "23767••••001"],
    ["+237 670 00 00 01", "23767••••001"],
    ["670000001", "67••••001"],
    ["12345678", "1••••678"],
    ["1234567", "•••"],
    ["", "•••"],
    ["not a phone", "•••"],
  ];

  it.each(cases)("masks %j as %j", (phone, masked) => {
    expect(maskPhone(phone)).toBe(masked);
  });

  it("shows the country code, the operator's prefix and the last three digits, no more", () => {
    const masked = maskPhone("237699123456");
    expect(masked).toBe("23769••••456");
    expect(masked).not.toContain("9123");
    // Numbers of different operators, same ending: told apart, still masked.
    expect(new Set(["237670000001", "237650000001", "237690000001"].map(maskPhone)).size).toBe(3);
  });
});

describe("redactToken", () => {
  it.each([
    [`bot${BOT_TOKEN}/sendMessage`, "bot<redacted-token>/sendMessage"],
    [`${BOT_TOKEN} and ${BOT_TOKEN}`, "<redacted-token> and <redacted-token>"],
    ["no token here: 1234:short", "no token here: 1234:short"],
    ["payout 237670000001 at 12:30", "payout 237670000001 at 12:30"],
  ])("turns %j into %j", (text, redacted) => {
    expect(redactToken(text)).toBe(redacted);
  });
});

describe("redactUrlCredentials", () => {
  it("hides the user and password of a URL and leaves the rest", () => {
    expect(redactUrlCredentials("redis://app:s3cret@cache.internal:6379/0")).toBe(
      "redis://***@cache.internal:6379/0",
    );
    expect(redactUrlCredentials("rediss://:s3cret@cache:6380")).toBe("rediss://***@cache:6380");
    expect(redactUrlCredentials("redis://127.0.0.1:6379")).toBe("redis://127.0.0.1:6379");
  });
});
