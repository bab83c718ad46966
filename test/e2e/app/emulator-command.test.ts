/**
 * `npm run emulator` as the README's rehearsal runs it: the emulator with its terminal chat,
 * `npm run sandbox` and `npm start`, three processes on one machine, wired only by what the
 * emulator and the sandbox print. The person types into the emulator's chat.
 */

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import {
  EMULATOR_USAGE,
  REHEARSAL_PAGE,
  REHEARSAL_SECTION,
} from "../../../src/dev/emulator-command.js";
import { translator } from "../../../src/i18n.js";
import { freePort } from "../../support/net.js";
import { escapeRegExp, PipedProcess } from "../../support/piped-process.js";
import { startBot, stopAllProcesses } from "../../support/processes.js";
import { dropTestPrefix, testPrefix, testRedisUrl } from "../../support/redis.js";

const en = translator("en");
const started: PipedProcess[] = [];
const prefix = testPrefix("emulator-cmd");

function run(args: string[], env: Record<string, string>): PipedProcess {
  const child = new PipedProcess(args, env);
  started.push(child);
  return child;
}

afterEach(async () => {
  for (const child of started.splice(0)) {
    child.kill();
    await child.exited;
  }
  await stopAllProcesses();
  await dropTestPrefix(prefix);
});

describe("npm run emulator", () => {
  it("lets npm start run end to end with npm run sandbox, chatting in its terminal", async () => {
    const filesDir = mkdtempSync(join(tmpdir(), "emulator-files-"));
    onTestFinished(() => rmSync(filesDir, { recursive: true, force: true }));
    const emulator = run(["emulator"], {
      EMULATOR_PORT: String(await freePort()),
      EMULATOR_FILES_DIR: filesDir,
    });
    const [, apiRoot = ""] = await emulator.waitFor(/TELEGRAM_API_ROOT=(\S+)/);
    const [, token = ""] = await emulator.waitFor(/TELEGRAM_BOT_TOKEN=(\S+)/);
    const [, staff = ""] = await emulator.waitFor(/STAFF=(\d+:admin)/);
    // It cannot know where the sandbox listens: it says where the sandbox prints it, and
    // points to the walk-through in docs/, which exists.
    await emulator.waitFor(/follow docs\/demo\.md, /);
    expect(emulator.output).toContain(REHEARSAL_SECTION);
    expect(emulator.output).not.toMatch(/PAYMENT_API_BASE_URL=/);
    const page = readFileSync(new URL(`../../../${REHEARSAL_PAGE}`, import.meta.url), "utf8");
    expect(page).toContain(`## ${REHEARSAL_SECTION.slice(1, -1)}`);

    const botPort = await freePort();
    const sandbox = run(["sandbox"], {
      SANDBOX_PORT: String(await freePort()),
      SANDBOX_SETTLE_DELAY_MS: "300",
      SANDBOX_KEY_FILE: "off",
      SANDBOX_CALLBACK_URL: `http://127.0.0.1:${botPort}/webhooks/payments`,
      LOG_LEVEL: "silent",
    });
    const [, sandboxUrl = ""] = await sandbox.waitFor(/listening on (http:\S+)/);
    const [, apiKey = ""] = await sandbox.waitFor(/API key \(X-API-Key\): +(\S+)/);

    const bot = await startBot({
      TELEGRAM_API_ROOT: apiRoot,
      TELEGRAM_BOT_TOKEN: token,
      PAYMENT_API_BASE_URL: sandboxUrl,
      PAYMENT_API_KEY: apiKey,
      STAFF: staff,
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: prefix,
      HTTP_PORT: String(botPort),
    });
    await emulator.waitFor(/\(emulator\) A bot connected/);

    emulator.type("/pay 670000001 5000");
    await emulator.waitFor(
      new RegExp(`Jean-Paul Mbarga[\\s\\S]*\\[1\\] ${escapeRegExp(en.plain("button.confirm"))}`),
    );
    emulator.type("1");
    await emulator.waitFor(new RegExp(`\\(edited\\) › ${escapeRegExp(en.plain("state.pending"))}`));
    // Settled by the sandbox's callback to the bot (or the bot's polling), then pushed.
    const paid = en.plain("notice.paid", { amount: "5,000 FCFA", name: "Jean-Paul Mbarga" });
    await emulator.waitFor(new RegExp(`bot #\\d+ › ${escapeRegExp(paid)}`));

    // A batch from a file on this machine; the files the bot sends back are saved.
    emulator.type(":file examples/payroll.csv");
    const [, preview = ""] = await emulator.waitFor(
      /\(emulator\) Saved the file as (\S+-preview\.csv)/,
    );
    expect(preview.startsWith(filesDir)).toBe(true);
    // Its row 2 repeats the /pay just made (same number and amount): left out as a
    // possible duplicate unless included.
    await emulator.waitFor(/To pay: 2 rows, 11,500 FCFA in all\./);
    await emulator.waitFor(/row 2: possible duplicate: 5,000 FCFA to this number/);

    // Roles are the bot's (STAFF, /staff): the emulator's chat cannot change them.
    emulator.type(":role admin");
    await emulator.waitFor(/\(emulator\) Roles come from the bot's STAFF and \/staff\./);
    emulator.type(":quit");
    expect((await emulator.exited).code).toBe(0);
    expect(emulator.output).toContain("Stopped. Bye.");
    expect((await bot.process.kill("SIGTERM")).code).toBe(0);
  });

  it("prints its options with --help and exits 0", async () => {
    const emulator = run(["emulator", "--help"], {});
    expect((await emulator.exited).code).toBe(0);
    expect(emulator.output).toBe(`${EMULATOR_USAGE}\n`);
  });

  it("refuses a user id that is not a number, with exit code 2", async () => {
    const emulator = run(["emulator", "--user", "me"], {});
    expect((await emulator.exited).code).toBe(2);
    expect(emulator.stderr).toContain('--user: must be a numeric Telegram id (got "me")');
  });
});
