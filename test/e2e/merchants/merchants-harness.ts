/**
 * Two businesses served by one bot (MERCHANTS_FILE), end to end: one sandbox that knows both
 * API keys, the Telegram emulator, a real Redis under a test prefix, and the front started as
 * `npm start` starts it with the file (`startMerchantsApp`).
 *
 * The people: Ada (1001) is admin of Alpha only; Paul (1002) is payer of Alpha and viewer of
 * Bravo; Vic (1003) is viewer of Alpha only; Bea (2001) is admin of Bravo only; Mo (1005) is
 * admin of Alpha and payer of Bravo.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type MerchantsApp, startMerchantsApp } from "../../../src/app-merchants.js";
import { loadMerchants } from "../../../src/config/merchants.js";
import type { TelegramEmulator } from "../../../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../../../src/logger.js";
import type { SandboxHandle, SandboxOptions } from "../../../src/sandbox/index.js";
import { harnessEnv, startServices } from "../../support/harness.js";
import { dropTestPrefix, testPrefix } from "../../support/redis.js";

export const ADA = 1001;
export const PAUL = 1002;
export const VIC = 1003;
export const BEA = 2001;
export const MO = 1005;

export const KEY_A = "sandbox-key-alpha";
export const KEY_B = "sandbox-key-bravo";
/** Alpha's key after a rotation: the same account at the API. */
export const KEY_A2 = "sandbox-key-alpha-rotated";
/** A third business's key, for one added by a reload. */
export const KEY_C = "sandbox-key-charlie";

/** The variables a merchant owns: the file gives them, not the environment. */
const MERCHANT_OWN = [
  "PAYMENT_API_KEY",
  "PAYMENT_API_BASE_URL",
  "PAYMENT_SIGNATURE_PUBLIC_KEY",
  "STAFF",
  "STATUS_POLL_INTERVAL_MS",
];

export interface MerchantsHarness {
  sandbox: SandboxHandle;
  emulator: TelegramEmulator;
  app: MerchantsApp;
  prefix: string;
  env: Record<string, string>;
  /** Rewrites the file (the next `app.reload()` reads it). */
  writeFile(merchants: unknown): void;
  close(): Promise<void>;
}

export function merchantEntries(
  sandbox: SandboxHandle,
  extra: { alpha?: Record<string, unknown>; bravo?: Record<string, unknown> } = {},
) {
  const common = {
    paymentApiBaseUrl: sandbox.url,
    paymentSignaturePublicKey: sandbox.publicKeyPem,
  };
  return [
    {
      id: "alpha",
      name: "Alpha Couriers",
      paymentApiKey: KEY_A,
      staff: `${ADA}:admin,${PAUL}:payer,${VIC}:viewer,${MO}:admin`,
      ...common,
      ...extra.alpha,
    },
    {
      id: "bravo",
      name: "Bravo & Sons",
      paymentApiKey: KEY_B,
      staff: `${BEA}:admin,${PAUL}:viewer,${MO}:payer`,
      ...common,
      ...extra.bravo,
    },
  ];
}

export async function startMerchantsHarness(
  options: {
    extra?: Parameters<typeof merchantEntries>[1];
    env?: Record<string, string>;
    webAppDir?: string;
    sandbox?: SandboxOptions;
    /** How long idle loops rest (MerchantsAppOptions.restMs). */
    restMs?: number;
  } = {},
): Promise<MerchantsHarness> {
  const { sandbox, emulator } = await startServices({
    accounts: [[KEY_A, KEY_A2], [KEY_B], [KEY_C]],
    ...options.sandbox,
  });
  const prefix = testPrefix("merchants");
  const dir = mkdtempSync(join(tmpdir(), "merchants-file-"));
  const file = join(dir, "merchants.json");
  const writeFile = (merchants: unknown) => writeFileSync(file, JSON.stringify(merchants));
  writeFile(merchantEntries(sandbox, options.extra));
  const env = harnessEnv(sandbox, emulator, prefix, { MERCHANTS_FILE: file, ...options.env });
  for (const name of MERCHANT_OWN) delete env[name];
  let app: MerchantsApp;
  try {
    app = await startMerchantsApp({
      env,
      merchants: loadMerchants(env).merchants,
      logger: silentLogger,
      pollTimeoutSeconds: 1,
      loopTickMs: 50,
      ...(options.webAppDir ? { webAppDir: options.webAppDir } : {}),
      ...(options.restMs === undefined ? {} : { restMs: options.restMs }),
    });
  } catch (error) {
    await emulator.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    sandbox,
    emulator,
    app,
    prefix,
    env,
    writeFile,
    close: async () => {
      await app.stop();
      await emulator.close();
      await sandbox.close();
      await dropTestPrefix(prefix);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The stores of one merchant as its runtime holds them. */
export function storesOf(h: MerchantsHarness, id: string) {
  const running = h.app.runtimes.get(id);
  if (!running) throw new Error(`merchant ${id} does not run`);
  return running.app.stores;
}
