/**
 * Error logs carry no personal data: the errors of our libraries quote what was sent (an
 * ioredis command's arguments, a Telegraf request's payload), and numbers come written in
 * every style. Real errors, from a real Redis and the Bot API emulator.
 */
import { Telegraf } from "telegraf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startTelegramEmulator,
  type TelegramEmulator,
} from "../../src/dev/telegram-emulator/index.js";
import { createLogger, maskPhonesIn } from "../../src/logger.js";
import { testRedis } from "../support/redis.js";

function capture() {
  const lines: string[] = [];
  const logger = createLogger({
    level: "debug",
    destination: { write: (line) => void lines.push(line) },
  });
  return { logger, lines };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

describe("error logs", () => {
  let emulator: TelegramEmulator;

  beforeAll(async () => {
    emulator = await startTelegramEmulator();
  });
  afterAll(() => emulator.close());

  it("drop an ioredis command's arguments, keeping its name", async () => {
    const redis = testRedis();
    try {
      const error = await failure(redis.call("HSET", "payout-bot-test:phone:237670000001", "odd"));
      const { logger, lines } = capture();
      logger.error({ err: error }, "redis failed");
      expect(lines[0]).toContain('"command":{"name":"HSET"}');
      expect(lines[0]).not.toContain("670000001");
    } finally {
      redis.disconnect();
    }
  });

  it("drop a Telegraf request's payload, keeping its method", async () => {
    const bot = new Telegraf(emulator.token, { telegram: { apiRoot: emulator.apiRoot } });
    const error = await failure(
      bot.telegram.sendMessage(424242, "Pay +237 670 00 00 01 now", { parse_mode: "HTML" }),
    );
    const { logger, lines } = capture();
    logger.error({ err: error }, "telegram failed");
    expect(lines[0]).toContain('"method":"sendMessage"');
    expect(lines[0]).not.toContain("670 00 00 01");
    expect(lines[0]).not.toContain("Pay +237");
  });

  it.each([
    "+237 670 00 00 01",
    "237 6 70 00 00 01",
    "670 00 00 01",
    "237670000001",
    "+237-670-00-00-01",
  ])("mask %s written in an error message", (written) => {
    const { logger, lines } = capture();
    logger.error({ err: new Error(`no account for ${written}`) }, "lookup failed");
    expect(lines[0]).not.toContain(written);
    expect(lines[0]).toContain("•");
    expect(maskPhonesIn(`call ${written} today`)).not.toContain(written);
  });
});
