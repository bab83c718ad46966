import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/index.js";
import { withEnvFile } from "../../src/env-file.js";

describe("withEnvFile", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function fileWith(text: string): string {
    dir = mkdtempSync(join(tmpdir(), "env-file-"));
    const path = join(dir, ".env");
    writeFileSync(path, text);
    return path;
  }

  it("adds the file's variables, and the real environment wins where both set one", () => {
    const path = fileWith(
      [
        "# copied from .env.example",
        "STAFF=1:admin",
        'PAYMENT_API_KEY="key from the file"',
        "export LOG_LEVEL=debug",
        "HTTP_PORT=9000",
      ].join("\n"),
    );
    const { env, file } = withEnvFile({ HTTP_PORT: "8081", LOG_LEVEL: "" }, path);

    expect(file).toBe(path);
    expect(env).toEqual({
      STAFF: "1:admin",
      PAYMENT_API_KEY: "key from the file",
      // Set in the environment, even blank: the environment's value stays.
      LOG_LEVEL: "",
      HTTP_PORT: "8081",
    });
  });

  it("changes nothing when there is no file", () => {
    dir = mkdtempSync(join(tmpdir(), "env-file-"));
    const real = { STAFF: "1:admin" };
    const { env, file } = withEnvFile(real, join(dir, ".env"));
    expect(file).toBeUndefined();
    expect(env).toEqual({ STAFF: "1:admin" });
  });

  it("reports a .env that exists but cannot be read as a configuration problem", () => {
    dir = mkdtempSync(join(tmpdir(), "env-file-"));
    const path = join(dir, ".env");
    mkdirSync(path);
    expect(() => withEnvFile({}, path)).toThrow(ConfigError);
    expect(() => withEnvFile({}, path)).toThrow(/\.env: exists but cannot be read/);
  });
});
