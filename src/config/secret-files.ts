/**
 * Secrets from files, the `_FILE` convention of the official Docker images: for every
 * secret variable X, `X_FILE=/run/secrets/x` reads X from that file (one trailing newline
 * dropped), so a Docker or Kubernetes secret never has to pass through the environment or a
 * `.env` file. An empty file leaves X unset (compose.yaml mounts every secret, and an
 * unused one is an empty file): what X requires then applies as if it were not given. Setting both X and X_FILE is a problem naming both; a file that cannot be read
 * is a problem naming the variable and the path, never what the file holds.
 */
import { readFileSync } from "node:fs";

/** The variables that may hold a secret (or a URL with a password in it). */
export const SECRET_VARIABLES = [
  "TELEGRAM_BOT_TOKEN",
  "TELEGRAM_WEBHOOK_SECRET",
  "PAYMENT_API_KEY",
  "PAYMENT_SIGNATURE_PUBLIC_KEY",
  "PAYMENT_REQUEST_SIGNING_KEY",
  "REDIS_URL",
  "REDIS_PASSWORD",
  "REDIS_SENTINEL_PASSWORD",
  "EVENTS_SECRET",
] as const;

/** A file of a secret is small: a key, a token, a PEM. */
const MAX_SECRET_FILE_BYTES = 64 * 1024;

/**
 * `env` with every `X_FILE` read into X (and X_FILE left out), and the problems met. Pure
 * but for reading the named files.
 */
export function withSecretFiles(env: NodeJS.ProcessEnv): {
  env: NodeJS.ProcessEnv;
  problems: string[];
} {
  const problems: string[] = [];
  const resolved: NodeJS.ProcessEnv = { ...env };
  for (const name of SECRET_VARIABLES) {
    const fileName = `${name}_FILE`;
    const path = env[fileName]?.trim();
    if (path === undefined || path === "") continue;
    delete resolved[fileName];
    if ((env[name] ?? "").trim() !== "") {
      problems.push(`${name}, ${fileName}: both are set; keep one (the file, for a secret)`);
      continue;
    }
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      const code = error instanceof Error && "code" in error ? String(error.code) : "unreadable";
      problems.push(`${fileName}: cannot read "${path}" (${code})`);
      continue;
    }
    if (Buffer.byteLength(text) > MAX_SECRET_FILE_BYTES) {
      problems.push(`${fileName}: "${path}" is over 64 KB, not a secret`);
      continue;
    }
    const value = text.replace(/\r?\n$/, "");
    if (value.trim() !== "") resolved[name] = value;
  }
  return { env: resolved, problems };
}
