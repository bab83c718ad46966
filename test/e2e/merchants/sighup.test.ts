/**
 * `npm start` with MERCHANTS_FILE, as deployed: one process serves both merchants, and a
 * SIGHUP re-reads the file (a bad file is refused and logged; the process runs on).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { isPromptIn, sendAndWait } from "../../support/flows.js";
import { startBot } from "../../support/processes.js";
import { startWorld, type World } from "../../support/world.js";
import { BEA, KEY_A, KEY_B, KEY_C, merchantEntries } from "./merchants-harness.js";

let world: World;
let dir: string;

beforeEach(async () => {
  world = await startWorld({ sandbox: { accounts: [[KEY_A], [KEY_B], [KEY_C]] } });
  dir = mkdtempSync(join(tmpdir(), "merchants-sighup-"));
}, 60_000);

afterEach(async () => {
  await world?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("npm start with MERCHANTS_FILE", () => {
  it("serves every merchant of the file and reloads it on SIGHUP", async () => {
    const file = join(dir, "merchants.json");
    const [alpha, bravo] = merchantEntries(world.sandbox);
    writeFileSync(file, JSON.stringify([alpha]));
    const env: Record<string, string> = { ...world.env, MERCHANTS_FILE: file };
    for (const name of [
      "PAYMENT_API_KEY",
      "PAYMENT_API_BASE_URL",
      "PAYMENT_SIGNATURE_PUBLIC_KEY",
      "STAFF",
    ])
      delete env[name];
    const bot = await startBot(env);
    const running = bot.process.logs.find((line) => line.msg.startsWith("payout bot running"));
    expect(running?.msg).toContain("for 1 merchant:");

    // A file that fails its checks: refused, logged, nothing else changes.
    writeFileSync(file, JSON.stringify([alpha, { ...bravo, id: "Bravo!" }]));
    bot.process.child.kill("SIGHUP");
    const refused = await bot.process.waitForLog((line) =>
      line.msg.startsWith("MERCHANTS_FILE not reloaded"),
    );
    expect(JSON.stringify(refused)).toContain('merchant \\"Bravo!\\" id: must be 2-32 characters');

    writeFileSync(file, JSON.stringify([alpha, bravo]));
    bot.process.child.kill("SIGHUP");
    const reloaded = await bot.process.waitForLog((line) => line.msg === "MERCHANTS_FILE reloaded");
    expect(reloaded).toMatchObject({ added: ["bravo"], removed: [], restarted: [] });
    const bea = world.emulator.user({ id: BEA, firstName: "Bea", languageCode: "en" });
    const prompt = await sendAndWait(
      world.emulator,
      bea,
      "/pay 237670000002 7777",
      isPromptIn(BEA),
    );
    expect(plainText(prompt)).toContain("7,777");
    expect(bot.process.exitInfo).toBeUndefined();
  });
});
