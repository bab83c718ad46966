/**
 * The `.env` file `npm start` reads: `.env.example` says "copy to .env", so that must work.
 * The real environment wins over the file, as with `node --env-file` and docker compose:
 * a variable set by the shell, systemd or the container stays as it was set.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseEnv } from "node:util";
import { ConfigError } from "./config/index.js";

export interface EnvWithFile {
  /** The file's variables under the real environment's. */
  env: NodeJS.ProcessEnv;
  /** The file that was read, or undefined when there was none. */
  file: string | undefined;
}

/**
 * `env` with the variables of the file at `path` (default `.env` in the working directory)
 * added where `env` has none. A missing file changes nothing; a file that exists but cannot
 * be read is a ConfigError, like any other bad setting. The file is parsed by Node's own
 * `util.parseEnv` (`KEY=value`, quotes, `#` comments, `export KEY=value`).
 */
export function withEnvFile(env: NodeJS.ProcessEnv, path = ".env"): EnvWithFile {
  const file = resolve(path);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (isNotFound(error)) return { env, file: undefined };
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError([`${path}: exists but cannot be read (${reason})`]);
  }
  const merged: NodeJS.ProcessEnv = { ...parseEnv(text) };
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined) merged[name] = value;
  }
  return { env: merged, file };
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ENOENT";
}
