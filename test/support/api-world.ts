/**
 * A bot whose Mini App API is served, fresh for each test: the sandbox, the emulator and the
 * app on the test Redis under a prefix of its own, with a stand-in page (the page itself has
 * its own tests; the API needs only that one exists). `api` is the API's base URL.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sign } from "@telegram-apps/init-data-node";
import { type App, startApp } from "../../src/app.js";
import { loadConfig } from "../../src/config/index.js";
import type { TelegramEmulator } from "../../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../../src/logger.js";
import type { SandboxHandle } from "../../src/sandbox/index.js";
import { harnessEnv, startServices } from "./harness.js";
import { perTest } from "./per-test.js";
import { dropTestPrefix, testPrefix } from "./redis.js";

/** The Mini App's address in the tests' settings. */
export const WEBAPP_URL = "https://pay.example.test/app/";

export interface ApiWorld {
  sandbox: SandboxHandle;
  emulator: TelegramEmulator;
  app: App;
  env: Record<string, string>;
  api: string;
}

/**
 * An ApiWorld per test of the enclosing describe, with `env` over the harness's settings
 * (WEBAPP_URL set), named `label` in its key prefix and temporary folder.
 */
export function apiWorldPerTest(
  label: string,
  env: Record<string, string>,
  options: { now?: () => number } = {},
): () => ApiWorld {
  return perTest<ApiWorld & { close(): Promise<void> }>(
    async () => {
      const { sandbox, emulator } = await startServices();
      const prefix = testPrefix(label);
      const pageDir = mkdtempSync(join(tmpdir(), `${label}-page-`));
      writeFileSync(join(pageDir, "index.html"), "<!doctype html><title>app</title>");
      const settings = harnessEnv(sandbox, emulator, prefix, { WEBAPP_URL, ...env });
      const app = await startApp({
        config: loadConfig(settings, "start"),
        logger: silentLogger,
        pollTimeoutSeconds: 1,
        loopTickMs: 50,
        webAppDir: pageDir,
        ...(options.now ? { now: options.now } : {}),
      });
      return {
        sandbox,
        emulator,
        app,
        env: settings,
        api: `${app.http?.url}/app/api/`,
        async close() {
          await app.stop();
          await emulator.close();
          await sandbox.close();
          await dropTestPrefix(prefix);
          rmSync(pageDir, { recursive: true, force: true });
        },
      };
    },
    (running) => running.close(),
  );
}

/**
 * A Mini App API call to `world` as `userId` (named `firstName`), with init data signed by
 * the bot token now: the answer's status and JSON body.
 */
export async function callApi(
  world: ApiWorld,
  user: { id: number; firstName: string },
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const initData = sign(
    { user: { id: user.id, first_name: user.firstName, language_code: "en" }, query_id: "q" },
    world.emulator.token,
    new Date(),
  );
  const response = await fetch(`${world.api}${path}`, {
    method,
    headers: {
      authorization: `tma ${initData}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}
