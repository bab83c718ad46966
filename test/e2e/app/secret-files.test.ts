/**
 * `npm start` with its secrets in files (Docker and Kubernetes secrets): the bot token, the
 * Payment API key and its public key given only as TELEGRAM_BOT_TOKEN_FILE,
 * PAYMENT_API_KEY_FILE and PAYMENT_SIGNATURE_PUBLIC_KEY_FILE; the bot starts and pays.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { payAndConfirm } from "../../support/flows.js";
import { harnessEnv, PAYER_ID, startServices } from "../../support/harness.js";
import { startBot } from "../../support/processes.js";
import { dropTestPrefix, testPrefix } from "../../support/redis.js";

const dir = mkdtempSync(join(tmpdir(), "secrets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm start with secrets in files", () => {
  it("reads the token and the keys from their files, and pays", async () => {
    const { sandbox, emulator } = await startServices();
    const prefix = testPrefix("secrets");
    const env = harnessEnv(sandbox, emulator, prefix);
    const secrets = {
      TELEGRAM_BOT_TOKEN: env.TELEGRAM_BOT_TOKEN ?? "",
      PAYMENT_API_KEY: env.PAYMENT_API_KEY ?? "",
      PAYMENT_SIGNATURE_PUBLIC_KEY: env.PAYMENT_SIGNATURE_PUBLIC_KEY ?? "",
    };
    const fromFiles: Record<string, string> = { ...env };
    for (const [name, value] of Object.entries(secrets)) {
      delete fromFiles[name];
      const path = join(dir, name.toLowerCase());
      writeFileSync(path, `${value}\n`, { mode: 0o600 });
      fromFiles[`${name}_FILE`] = path;
    }
    const bot = await startBot(fromFiles);
    try {
      const payer = emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
      const pending = await payAndConfirm(emulator, payer, "/pay 670000001 5000");
      expect(plainText(pending)).toContain("Pending");
      expect(sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
      const logged = bot.process.logs.map((line) => JSON.stringify(line)).join("\n");
      for (const value of Object.values(secrets)) expect(logged).not.toContain(value.slice(-12));
    } finally {
      await bot.process.kill("SIGTERM");
      await emulator.close();
      await sandbox.close();
      await dropTestPrefix(prefix);
    }
  });
});
