/**
 * A payout that stays pending past PAYOUT_STUCK_AFTER_HOURS: the payer and the admins are
 * told once, and polling goes on. The app runs on a clock the test can move forward.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type App, startApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import {
  plainText,
  type SentMessage,
  startTelegramEmulator,
  type TelegramEmulator,
} from "../../src/dev/telegram-emulator.js";
import { silentLogger } from "../../src/logger.js";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { ADMIN_ID, harnessEnv, PAYER_ID } from "../support/harness.js";
import { dropPrefix, testPrefix, testRedis } from "../support/redis.js";

const HOUR_MS = 3_600_000;

let sandbox: SandboxHandle;
let emulator: TelegramEmulator;
let app: App;
let prefix: string;
/** The app's clock runs this far ahead of the real one. */
let offsetMs = 0;

beforeEach(async () => {
  offsetMs = 0;
  sandbox = await startSandbox({ settleDelayMs: 150, rateLimitPerMinute: 0 });
  emulator = await startTelegramEmulator({ maxPollWaitMs: 200 });
  prefix = testPrefix("e2e-stuck");
  const env = harnessEnv(sandbox, emulator, prefix, { PAYOUT_STUCK_AFTER_HOURS: "1" });
  app = await startApp({
    config: loadConfig(env, "start"),
    logger: silentLogger,
    pollTimeoutSeconds: 1,
    loopTickMs: 50,
    now: () => Date.now() + offsetMs,
  });
});

afterEach(async () => {
  await app.stop();
  await emulator.close();
  await sandbox.close();
  const redis = testRedis();
  await dropPrefix(redis, prefix);
  await redis.quit();
});

function isStuckNotice(message: SentMessage): boolean {
  return plainText(message).startsWith("⚠️ Still pending:");
}

describe("a payout that stays pending", () => {
  it("is reported as stuck to the payer and the admins once, and is still polled", async () => {
    // The admin has a chat with the bot, so the report can reach them.
    emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const payer = emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });

    const shown = emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && (m.replyMarkup?.length ?? 0) > 0,
    );
    await payer.sendText("/pay 237670000003 5000");
    const prompt = await shown;
    const pending = emulator.waitForMessage(
      (m) => m.messageId === prompt.messageId && plainText(m).includes("Pending"),
    );
    await payer.pressButton(prompt, 0);
    await pending;
    const [payout] = (await app.stores.payouts.listInState("pending")).filter(
      (item) => item.messageId === prompt.messageId,
    );
    const paymentId = payout?.paymentId ?? "";
    const reads = () => sandbox.countRequests({ method: "GET", path: `/payments/${paymentId}` });

    // Polled, still pending, nobody told anything yet.
    await expect.poll(reads).toBeGreaterThanOrEqual(1);
    expect(emulator.messages(PAYER_ID).filter(isStuckNotice)).toHaveLength(0);

    const toPayer = emulator.waitForMessage((m) => m.chatId === PAYER_ID && isStuckNotice(m));
    const toAdmin = emulator.waitForMessage((m) => m.chatId === ADMIN_ID && isStuckNotice(m));
    offsetMs = HOUR_MS + 60_000;
    const [payerNotice, adminNotice] = await Promise.all([toPayer, toAdmin]);
    for (const notice of [payerNotice, adminNotice]) {
      expect(plainText(notice)).toContain("5,000 FCFA for Hervé Tchamba");
      expect(plainText(notice)).toContain(`Payment id: ${paymentId}`);
    }

    // Tracking goes on, and a second hour brings no second report.
    const readsAtNotice = reads();
    offsetMs += HOUR_MS;
    await expect.poll(reads).toBeGreaterThan(readsAtNotice);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(emulator.messages(PAYER_ID).filter(isStuckNotice)).toHaveLength(1);
    expect(emulator.messages(ADMIN_ID).filter(isStuckNotice)).toHaveLength(1);
    const stored = await app.stores.payouts.get(payout?.id ?? "");
    expect(stored?.state).toBe("pending");
    expect(stored?.stuckReportedAtMs).toBeDefined();
    expect(await app.stores.tracking.dueAt(payout?.id ?? "")).not.toBeNull();
  });
});
