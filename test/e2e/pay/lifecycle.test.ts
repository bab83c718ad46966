/**
 * `main.ts start` as a process: a clean stop on SIGTERM/SIGINT that hands the Telegram
 * polling lease over, and start-up failures that say what is wrong and exit with the
 * documented code (2 for configuration, 1 for everything else) without a stack trace.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { keys } from "../../../src/store/keys.js";
import { PAYER_ID } from "../../support/harness.js";
import { freePort } from "../../support/net.js";
import { healthStatus, MainProcess, startBot } from "../../support/processes.js";
import { testRedis } from "../../support/redis.js";
import { worldPerTest } from "../../support/world.js";

/** A stack trace line, as Node prints them. */
const STACK_LINE = /^\s+at .+:\d+:\d+\)?$/m;

describe("the bot process", () => {
  const world = worldPerTest();

  async function pollerLeaseHolder(): Promise<string | null> {
    const redis = testRedis();
    try {
      return await redis.get(keys(world.prefix).lease("telegram-poller"));
    } finally {
      await redis.quit();
    }
  }

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`stops cleanly on ${signal}: exit code 0, and the polling lease is free for the next process`, async () => {
      const bot = await startBot(world.env);
      await bot.process.waitForLog((line) => line.msg === "this replica now polls Telegram");
      expect(await pollerLeaseHolder()).not.toBeNull();
      expect(await healthStatus(bot.url)).toBe(200);
      // Long polling: every getUpdates asks Telegram to wait (25 s), none spins with 0. The
      // lease is logged just before the first getUpdates leaves: wait for it to arrive.
      await expect
        .poll(() => world.emulator.calls.filter((call) => call.method === "getUpdates").length)
        .toBeGreaterThan(0);
      const polls = world.emulator.calls.filter((call) => call.method === "getUpdates");
      for (const poll of polls) expect(poll.params.timeout).toBe(25);

      bot.process.child.kill(signal);
      const exit = await bot.process.waitForExit(10_000);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(bot.process.hasLog((line) => line.msg === "stopping")).toBe(true);
      // The last line says it stopped, and how.
      expect(bot.process.logs.at(-1)).toMatchObject({ msg: "stopped", signal, exitCode: 0 });
      expect(await pollerLeaseHolder()).toBeNull();
      expect(await healthStatus(bot.url, 500)).toBe(0);

      // The next process polls at once, so a user's message is answered.
      const next = await startBot(world.env);
      await next.process.waitForLog((line) => line.msg === "this replica now polls Telegram", 3000);
      const payer = world.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
      const answer = world.emulator.waitForMessage((m) => m.chatId === PAYER_ID);
      await payer.sendText("/help");
      expect(plainText(await answer)).toContain("/pay");
    });
  }

  it("reads .env from its working directory, and the real environment wins over it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bot-dotenv-"));
    try {
      const { PAYMENT_SIGNATURE_PUBLIC_KEY = "", ...fromFile } = world.env;
      // The file says silent; the environment says info: only the environment's logs show.
      const lines = Object.entries({ ...fromFile, LOG_LEVEL: "silent", HTTP_PORT: "1" });
      writeFileSync(join(dir, ".env"), lines.map(([name, value]) => `${name}=${value}`).join("\n"));
      const port = await freePort();
      const child = new MainProcess(
        ["start"],
        { PAYMENT_SIGNATURE_PUBLIC_KEY, LOG_LEVEL: "info", HTTP_PORT: String(port) },
        { cwd: dir },
      );
      const running = await child.waitForLog((line) => line.msg.startsWith("payout bot running"));
      expect(running.listening).toBe(`127.0.0.1:${port}`);
      expect(child.hasLog((line) => line.msg.startsWith("read .env"))).toBe(true);
      expect(await healthStatus(`http://127.0.0.1:${port}`)).toBe(200);
      expect((await child.kill("SIGTERM")).code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("logs the address it really listens on: 0.0.0.0 when HTTP_HOST says every interface", async () => {
    const port = await freePort();
    const child = new MainProcess(["start"], {
      ...world.env,
      LOG_LEVEL: "info",
      HTTP_HOST: "0.0.0.0",
      HTTP_PORT: String(port),
    });
    const running = await child.waitForLog((line) => line.msg.startsWith("payout bot running"));
    expect(running.listening).toBe(`0.0.0.0:${port}`);
    expect(running.msg).toContain(`HTTP on 0.0.0.0:${port}`);
    expect((await child.kill("SIGTERM")).code).toBe(0);
  });

  /** Runs `main.ts start` with `env` and waits for it to give up. */
  async function failedStart(env: Record<string, string>) {
    const child = new MainProcess(["start"], env);
    const exit = await child.waitForExit(20_000);
    return { exit, stderr: child.stderr, child };
  }

  it("refuses a bad configuration with exit code 2 and one message listing every problem", async () => {
    const { exit, stderr } = await failedStart({
      ...world.env,
      TELEGRAM_BOT_TOKEN: "not-a-token",
      PAYMENT_API_BASE_URL: "ftp://payments.example",
      STAFF: "1001:boss,1002:payer",
      HTTP_PORT: "99999",
    });
    expect(exit.code).toBe(2);
    expect(stderr).toMatch(/^Configuration is not valid \(4 problems\)/);
    for (const name of ["TELEGRAM_BOT_TOKEN", "PAYMENT_API_BASE_URL", "STAFF", "HTTP_PORT"])
      expect(stderr).toContain(`- ${name}`);
    expect(stderr).not.toMatch(STACK_LINE);
  });

  it("refuses a bot token Telegram does not know with a clear message and exit code 1", async () => {
    const { exit, stderr } = await failedStart({
      ...world.env,
      TELEGRAM_BOT_TOKEN: "987654321:SomeOtherBotsToken-aaaaaaaaaaaaaaaa",
    });
    expect(exit.code).toBe(1);
    expect(stderr).toContain("Telegram refused TELEGRAM_BOT_TOKEN (401 Unauthorized)");
    expect(stderr).not.toContain("SomeOtherBotsToken");
    expect(stderr).not.toMatch(STACK_LINE);
  });

  it("stops with a clear message and exit code 1 when the Payment API does not answer", async () => {
    const closedPort = await freePort();
    const { exit, stderr } = await failedStart({
      ...world.env,
      PAYMENT_API_BASE_URL: `http://127.0.0.1:${closedPort}`,
    });
    expect(exit.code).toBe(1);
    expect(stderr).toContain(`The Payment API at http://127.0.0.1:${closedPort} did not answer`);
    expect(stderr).toContain("PAYMENT_API_BASE_URL");
    expect(stderr).not.toMatch(STACK_LINE);
  });

  it("refuses a wrong Payment API key with a clear message and exit code 1", async () => {
    const { exit, stderr } = await failedStart({ ...world.env, PAYMENT_API_KEY: "revoked-key" });
    expect(exit.code).toBe(1);
    expect(stderr).toContain("refused PAYMENT_API_KEY (401)");
    expect(stderr).not.toContain("revoked-key");
  });

  it("does not start without Redis (no in-memory fallback): clear message, exit code 1", async () => {
    const closedPort = await freePort();
    const { exit, stderr, child } = await failedStart({
      ...world.env,
      REDIS_URL: `redis://127.0.0.1:${closedPort}`,
    });
    expect(exit.code).toBe(1);
    expect(stderr).toContain(`Redis at redis://127.0.0.1:${closedPort} is not reachable`);
    expect(stderr).toContain("REDIS_URL");
    expect(stderr).not.toMatch(STACK_LINE);
    expect(child.hasLog((line) => line.msg.startsWith("payout bot running"))).toBe(false);
    expect(world.emulator.countCalls("getUpdates")).toBe(0);
  });
});
