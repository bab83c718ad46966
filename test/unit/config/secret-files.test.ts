/** Secrets from files (X_FILE), as the official Docker images read them. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/config/index.js";
import { SECRET_VARIABLES, withSecretFiles } from "../../../src/config/secret-files.js";

const dir = mkdtempSync(join(tmpdir(), "secret-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

describe("withSecretFiles", () => {
  it("reads X from X_FILE, dropping one trailing newline, and leaves X_FILE out", () => {
    const path = file("key", "sandbox-test-key\n");
    const { env, problems } = withSecretFiles({ PAYMENT_API_KEY_FILE: path, OTHER: "x" });
    expect(problems).toEqual([]);
    expect(env).toEqual({ PAYMENT_API_KEY: "sandbox-test-key", OTHER: "x" });
  });

  it("keeps a PEM's inner lines as they are", () => {
    const pem = "-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----";
    const path = file("pem", `${pem}\n`);
    const { env } = withSecretFiles({ PAYMENT_SIGNATURE_PUBLIC_KEY_FILE: path });
    expect(env.PAYMENT_SIGNATURE_PUBLIC_KEY).toBe(pem);
  });

  it("refuses X and X_FILE both set, naming both", () => {
    const path = file("token", "123:abc");
    const { problems } = withSecretFiles({
      TELEGRAM_BOT_TOKEN: "123:def",
      TELEGRAM_BOT_TOKEN_FILE: path,
    });
    expect(problems).toEqual([
      "TELEGRAM_BOT_TOKEN, TELEGRAM_BOT_TOKEN_FILE: both are set; keep one (the file, for a secret)",
    ]);
  });

  it("names the variable and the path of a file it cannot read, never its content", () => {
    const missing = join(dir, "nope");
    const both = file("both", "whsec_do-not-print");
    const { problems } = withSecretFiles({
      EVENTS_SECRET_FILE: missing,
      REDIS_PASSWORD_FILE: dir,
      PAYMENT_API_KEY: "x",
      PAYMENT_API_KEY_FILE: both,
    });
    expect(problems).toEqual([
      "PAYMENT_API_KEY, PAYMENT_API_KEY_FILE: both are set; keep one (the file, for a secret)",
      `REDIS_PASSWORD_FILE: cannot read "${dir}" (EISDIR)`,
      `EVENTS_SECRET_FILE: cannot read "${missing}" (ENOENT)`,
    ]);
    expect(problems.join()).not.toContain("do-not-print");
  });

  it("leaves X unset for an empty file (an unused secret compose mounts), so what X requires applies", () => {
    const { env, problems } = withSecretFiles({ EVENTS_SECRET_FILE: file("empty", "\n") });
    expect(problems).toEqual([]);
    expect(env).toEqual({});
    expect(() =>
      loadConfig({ PAYMENT_API_KEY_FILE: file("empty-key", ""), STAFF: "1:admin" }, "start"),
    ).toThrow(/PAYMENT_API_KEY: required/);
  });

  it("covers every secret the configuration reads", () => {
    expect([...SECRET_VARIABLES]).toEqual(
      expect.arrayContaining([
        "TELEGRAM_BOT_TOKEN",
        "TELEGRAM_WEBHOOK_SECRET",
        "PAYMENT_API_KEY",
        "PAYMENT_REQUEST_SIGNING_KEY",
        "REDIS_PASSWORD",
        "REDIS_SENTINEL_PASSWORD",
        "EVENTS_SECRET",
      ]),
    );
  });
});

describe("loadConfig with secrets in files", () => {
  it("takes the token and the key from files, and lists a file's problem with the others", () => {
    const config = loadConfig(
      {
        TELEGRAM_BOT_TOKEN_FILE: file("t", "123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n"),
        PAYMENT_API_KEY_FILE: file("k", "key-from-file\n"),
        PAYMENT_API_BASE_URL: "http://127.0.0.1:8090",
        STAFF: "1:admin",
      },
      "start",
    );
    expect(config.telegram.token).toBe("123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    expect(config.payment.apiKey).toBe("key-from-file");
    expect(() =>
      loadConfig({ PAYMENT_API_KEY_FILE: join(dir, "absent"), STAFF: "x" }, "start"),
    ).toThrow(ConfigError);
    try {
      loadConfig({ PAYMENT_API_KEY_FILE: join(dir, "absent"), STAFF: "x" }, "start");
    } catch (error) {
      const problems = error instanceof ConfigError ? error.problems : [];
      expect(problems[0]).toBe(
        `PAYMENT_API_KEY_FILE: cannot read "${join(dir, "absent")}" (ENOENT)`,
      );
      expect(problems.length).toBeGreaterThan(1);
    }
  });
});
