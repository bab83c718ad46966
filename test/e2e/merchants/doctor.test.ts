/**
 * `npm run doctor` with MERCHANTS_FILE checks every merchant with its own settings, each
 * under its name; a merchant whose key the API refuses fails the run; a file that does not
 * parse is exit 2 naming the merchant and the field.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TelegramEmulator } from "../../../src/dev/telegram-emulator/index.js";
import type { SandboxHandle } from "../../../src/sandbox/index.js";
import { harnessEnv, startServices } from "../../support/harness.js";
import { PipedProcess } from "../../support/piped-process.js";
import { testPrefix } from "../../support/redis.js";
import { KEY_A, KEY_B, merchantEntries } from "./merchants-harness.js";

let services: { sandbox: SandboxHandle; emulator: TelegramEmulator };
let dir: string;

beforeEach(async () => {
  services = await startServices({ accounts: [[KEY_A], [KEY_B]] });
  dir = mkdtempSync(join(tmpdir(), "merchants-doctor-"));
});

afterEach(async () => {
  await services.emulator.close();
  await services.sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

async function doctor(merchants: unknown) {
  const file = join(dir, "merchants.json");
  writeFileSync(file, JSON.stringify(merchants));
  const env = harnessEnv(services.sandbox, services.emulator, testPrefix("doctor"), {
    MERCHANTS_FILE: file,
  });
  for (const name of [
    "PAYMENT_API_KEY",
    "PAYMENT_API_BASE_URL",
    "PAYMENT_SIGNATURE_PUBLIC_KEY",
    "STAFF",
  ])
    delete env[name];
  const run = new PipedProcess(["doctor"], env);
  const { code } = await run.exited;
  return { code, output: run.output };
}

describe("npm run doctor with MERCHANTS_FILE", { timeout: 60_000 }, () => {
  it("checks each merchant with its own key, under its name", async () => {
    const [alpha, bravo] = merchantEntries(services.sandbox, {
      bravo: { paymentApiKey: "not-our-key" },
    });
    const { code, output } = await doctor([alpha, bravo]);
    const [forAlpha, forBravo] = output.split('merchant "bravo" (Bravo & Sons):');
    expect(forAlpha).toContain('merchant "alpha" (Alpha Couriers):');
    expect(forAlpha).toMatch(/✓ payment api/);
    expect(forBravo).toMatch(/✗ payment api +The Payment API refused PAYMENT_API_KEY \(401\)/);
    expect(output).not.toContain("not-our-key");
    expect(code).toBe(1);
  });

  it("lists every problem of a file that does not parse, naming the merchant and the field", async () => {
    const [alpha] = merchantEntries(services.sandbox);
    const { code, output } = await doctor([{ ...alpha, digestHour: 25 }]);
    expect(output).toContain('merchant "alpha" digestHour: must be an hour from 0 to 23');
    expect(code).toBe(2);
  });
});
