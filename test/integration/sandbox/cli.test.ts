import { spawnSync } from "node:child_process";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/config/index.js";
import { silentLogger } from "../../../src/logger.js";
import {
  DEFAULT_SANDBOX_API_KEY,
  parseSandboxEnv,
  runSandboxCommand,
  SANDBOX_USAGE,
  SandboxSettingsError,
  startSandbox,
} from "../../../src/sandbox/index.js";
import { waitFor } from "./helpers.js";

describe("parseSandboxEnv", () => {
  it("uses the documented defaults when nothing is set", () => {
    expect(parseSandboxEnv({}).options).toEqual({
      host: "127.0.0.1",
      port: 8090,
      apiKeys: [DEFAULT_SANDBOX_API_KEY],
      callbackUrl: undefined,
      settleDelayMs: 3000,
      rateLimitPerMinute: 100,
    });
  });

  it("reads every SANDBOX_* variable, treating blank ones as unset", () => {
    const { options } = parseSandboxEnv({
      SANDBOX_HOST: "0.0.0.0",
      SANDBOX_PORT: "9000",
      SANDBOX_API_KEYS: " key-a , key-b ",
      SANDBOX_CALLBACK_URL: "http://127.0.0.1:8080/webhooks/payments",
      SANDBOX_SETTLE_DELAY_MS: "250",
      SANDBOX_RATE_LIMIT_PER_MINUTE: " ",
    });
    expect(options).toEqual({
      host: "0.0.0.0",
      port: 9000,
      apiKeys: ["key-a", "key-b"],
      callbackUrl: "http://127.0.0.1:8080/webhooks/payments",
      settleDelayMs: 250,
      rateLimitPerMinute: 100,
    });
  });

  it("lists every bad variable at once with exit code 2", () => {
    let caught: unknown;
    try {
      parseSandboxEnv({
        SANDBOX_PORT: "80a",
        SANDBOX_API_KEYS: "a,,b",
        SANDBOX_CALLBACK_URL: "not a url",
        SANDBOX_SETTLE_DELAY_MS: "-5",
        SANDBOX_RATE_LIMIT_PER_MINUTE: "1.5",
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect(caught).toBeInstanceOf(SandboxSettingsError);
    if (!(caught instanceof SandboxSettingsError)) return;
    expect(caught.exitCode).toBe(2);
    const named = caught.problems.map((problem) => problem.split(/[.:]/)[0]);
    expect(named.sort()).toEqual([
      "SANDBOX_API_KEYS",
      "SANDBOX_CALLBACK_URL",
      "SANDBOX_PORT",
      "SANDBOX_RATE_LIMIT_PER_MINUTE",
      "SANDBOX_SETTLE_DELAY_MS",
    ]);
    expect(caught.message).toContain("SANDBOX_PORT");
  });

  it("keeps the signing key in .sandbox/ unless SANDBOX_KEY_FILE says otherwise", () => {
    expect(parseSandboxEnv({}).keyFile).toBe(".sandbox/private-key.pem");
    expect(parseSandboxEnv({ SANDBOX_KEY_FILE: " /tmp/k.pem " }).keyFile).toBe("/tmp/k.pem");
    expect(parseSandboxEnv({ SANDBOX_KEY_FILE: "off" }).keyFile).toBeUndefined();
  });

  it("refuses a port above 65535", () => {
    expect(() => parseSandboxEnv({ SANDBOX_PORT: "70000" })).toThrow(/SANDBOX_PORT/);
  });
});

describe("runSandboxCommand", () => {
  it("prints its options with --help, and starts nothing", async () => {
    let printed = "";
    await runSandboxCommand(
      { SANDBOX_PORT: "not even a port" },
      { argv: ["--help"], stdout: { write: (text: string) => (printed += text) } },
    );
    expect(printed).toBe(`${SANDBOX_USAGE}\n`);
    for (const name of [
      "SANDBOX_HOST",
      "SANDBOX_PORT",
      "SANDBOX_API_KEYS",
      "SANDBOX_CALLBACK_URL",
      "SANDBOX_SETTLE_DELAY_MS",
      "SANDBOX_RATE_LIMIT_PER_MINUTE",
      "SANDBOX_KEY_FILE",
      "--help",
    ]) {
      expect(printed).toContain(name);
    }
  });

  it("refuses an argument it does not know, with exit code 2, before listening", async () => {
    await expect(runSandboxCommand({}, { argv: ["--port", "9000"] })).rejects.toMatchObject({
      name: "SandboxSettingsError",
      exitCode: 2,
      problems: [
        "--port: unknown argument (the sandbox takes only --help)",
        "9000: unknown argument (the sandbox takes only --help)",
      ],
    });
  });

  it("answers `npm run sandbox -- --help` with the options and exit code 0", () => {
    const root = fileURLToPath(new URL("../../../", import.meta.url));
    const run = spawnSync(process.execPath, ["--import", "tsx", "src/main.ts", "sandbox", "-h"], {
      cwd: root,
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(`${SANDBOX_USAGE}\n`);
  });

  it("serves until stopped, after printing the URL, key, public key and scripted numbers", async () => {
    let printed = "";
    const stop = new AbortController();
    const running = runSandboxCommand(
      { SANDBOX_PORT: "0", SANDBOX_API_KEYS: "cli-key", SANDBOX_KEY_FILE: "off" },
      {
        stdout: { write: (text: string) => (printed += text) },
        logger: silentLogger,
        stop: stop.signal,
      },
    );
    const url = await waitFor(() => /listening on (http:\S+)/.exec(printed)?.[1], "the banner");
    expect(printed).toContain("cli-key");
    expect(printed).toContain(`${url}/_sandbox/public-key`);
    expect(printed).toContain("237670000001");
    expect(printed).toContain("Jean-Paul Mbarga");
    expect(printed).toContain("stay pending forever");

    const response = await request(`${url}/availability`, { headers: { "x-api-key": "cli-key" } });
    await response.body.dump();
    expect(response.statusCode).toBe(200);

    stop.abort();
    await running;
    await expect(request(`${url}/availability`)).rejects.toThrow();
  });

  it("fails with exit code 1 when the port is taken", async () => {
    const taken = await startSandbox({ port: 0 });
    try {
      const port = new URL(taken.url).port;
      const attempt = runSandboxCommand(
        { SANDBOX_PORT: port, SANDBOX_KEY_FILE: "off" },
        { logger: silentLogger },
      );
      await expect(attempt).rejects.toMatchObject({ name: "SandboxCommandError", exitCode: 1 });
    } finally {
      await taken.close();
    }
  });

  it("keeps its signing key in SANDBOX_KEY_FILE, so a restarted sandbox signs as before", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sandbox-key-"));
    const keyFile = join(dir, "kept", "private-key.pem");
    /** Runs the command once and returns the public key it served. */
    const runOnce = async () => {
      let printed = "";
      const stop = new AbortController();
      const running = runSandboxCommand(
        { SANDBOX_PORT: "0", SANDBOX_KEY_FILE: keyFile },
        {
          stdout: { write: (text: string) => (printed += text) },
          logger: silentLogger,
          stop: stop.signal,
        },
      );
      const url = await waitFor(() => /listening on (http:\S+)/.exec(printed)?.[1], "the banner");
      const response = await request(`${url}/_sandbox/public-key`);
      const publicKey = await response.body.text();
      stop.abort();
      await running;
      return { publicKey, printed };
    };
    try {
      const first = await runOnce();
      const second = await runOnce();

      expect(first.publicKey).toContain("BEGIN PUBLIC KEY");
      expect(second.publicKey).toBe(first.publicKey);
      expect(second.printed).toContain(`kept in ${keyFile}`);
      expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a SANDBOX_KEY_FILE that holds no private key, with exit code 2", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sandbox-key-"));
    const keyFile = join(dir, "private-key.pem");
    await writeFile(keyFile, "not a key");
    try {
      await expect(
        runSandboxCommand(
          { SANDBOX_PORT: "0", SANDBOX_KEY_FILE: keyFile },
          { logger: silentLogger },
        ),
      ).rejects.toMatchObject({
        name: "SandboxSettingsError",
        exitCode: 2,
        problems: [
          `SANDBOX_KEY_FILE: ${keyFile} is not a PEM private key (delete it to make a new one)`,
        ],
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("fails with exit code 2 on bad settings before listening", async () => {
    await expect(runSandboxCommand({ SANDBOX_PORT: "x" })).rejects.toMatchObject({
      name: "SandboxSettingsError",
      exitCode: 2,
    });
  });
});
