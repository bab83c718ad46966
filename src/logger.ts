/**
 * The one pino logger. Secrets are redacted by path (API key, bot token, signing keys,
 * `X-API-Key`/`X-Sig` headers) and phone numbers are masked with `maskPhone` wherever a
 * module logs one: a log line must never carry a secret or a whole phone number.
 */
import { type DestinationStream, type Logger, pino } from "pino";

export type { Logger } from "pino";

const SECRET_KEYS = [
  "apiKey",
  "token",
  "botToken",
  "secret",
  "webhookSecret",
  "signingKey",
  "privateKey",
  "requestSigningKey",
  "password",
  "authorization",
  "x-api-key",
  "X-API-Key",
  "x-sig",
  "X-Sig",
  "x-telegram-bot-api-secret-token",
];

/** pino redaction paths: each secret key at the top level and up to three levels down. */
export const REDACT_PATHS = SECRET_KEYS.flatMap((key) =>
  /^[A-Za-z_]\w*$/.test(key)
    ? [key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`]
    : [`["${key}"]`, `*["${key}"]`, `*.*["${key}"]`, `*.*.*["${key}"]`],
);

/** Redacts bot tokens in every string of a log object (URLs in error details, say). */
function redactTokensDeep(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactToken(value);
  if (depth > 4 || value === null || typeof value !== "object" || value instanceof Error)
    return value;
  if (Array.isArray(value)) return value.map((item) => redactTokensDeep(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = redactTokensDeep(item, depth + 1);
  return copy;
}

/**
 * `237670000001` → `23767••••001`, `670000001` → `67••••001`: the country code, the
 * operator's prefix (two digits of the national number) and the last three digits, as
 * /history shows them (`67• •• •0 01`); four digits stay hidden. A shorter digit string
 * (8) keeps one digit ahead; anything that is not a long digit string is masked whole.
 */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, "");
  if (digits.length < 8) return "•••";
  const head = digits.length === 8 ? 1 : digits.length - 7;
  return `${digits.slice(0, head)}${"•".repeat(digits.length - head - 3)}${digits.slice(-3)}`;
}

/**
 * A number as people write it: 8 to 15 digits, maybe with a leading +, single spaces, dots
 * or dashes between them (`237670000001`, `+237 670 00 00 01`, `670-00-00-01`).
 */
const WRITTEN_NUMBER = /\+?\d(?:[ \u00A0.-]?\d){7,14}/g;

/** Masks every number of 8 or more digits in `text`, however it is written, with maskPhone. */
export function maskPhonesIn(text: string): string {
  return text.replace(WRITTEN_NUMBER, maskPhone);
}

/**
 * Fields of library errors that carry what was sent: ioredis's `command` (with its args,
 * where keys and values can hold phone numbers) and Telegraf's `on` (with the request
 * payload, the message text). Only the command or method name is kept.
 */
function dropRequestData(serialized: Record<string, unknown>): void {
  const command: unknown = serialized.command;
  if (command && typeof command === "object" && "name" in command) {
    serialized.command = { name: command.name };
  } else if (command !== undefined) {
    delete serialized.command;
  }
  const on: unknown = serialized.on;
  if (on && typeof on === "object" && "method" in on) serialized.on = { method: on.method };
  else if (on !== undefined) delete serialized.on;
  delete serialized.args;
  delete serialized.payload;
}

/** `redis://user:secret@host:6379` → `redis://***@host:6379`: a URL fit to show or log. */
export function redactUrlCredentials(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//***@");
}

/** Bot tokens look like `123456:ABC…`; URLs that embed one (Telegram's) are redacted too. */
export function redactToken(text: string): string {
  return text.replace(/\d{5,}:[A-Za-z0-9_-]{20,}/g, "<redacted-token>");
}

export interface LoggerOptions {
  level?: string;
  /** Human-readable output (the demo and the sandbox command); JSON otherwise. */
  pretty?: boolean;
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const base = {
    level: options.level ?? "info",
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    base: undefined,
    formatters: {
      level: (label: string) => ({ level: label }),
      log: (object: Record<string, unknown>) => {
        const redacted = redactTokensDeep(object);
        return typeof redacted === "object" && redacted !== null ? { ...redacted } : object;
      },
    },
    hooks: {
      // Error messages from HTTP libraries can quote a Telegram URL with the token in it.
      logMethod(this: Logger, args: Parameters<Logger["info"]>, method: Logger["info"]) {
        const first = args[0];
        // pino copies an error's message into `msg` when no message is given: redact it too.
        if (first instanceof Error && typeof args[1] !== "string") {
          return method.call(this, first, redactToken(first.message));
        }
        const redacted = args.map((arg) => (typeof arg === "string" ? redactToken(arg) : arg));
        return method.apply(this, redacted as Parameters<Logger["info"]>);
      },
    },
    serializers: {
      err: (error: unknown) => {
        const serialized = pino.stdSerializers.err(error as Error);
        serialized.message = maskPhonesIn(redactToken(serialized.message ?? ""));
        if (serialized.stack) serialized.stack = maskPhonesIn(redactToken(serialized.stack));
        dropRequestData(serialized);
        return serialized;
      },
    },
  };
  if (options.pretty && !options.destination) {
    return pino({
      ...base,
      transport: {
        target: "pino-pretty",
        options: { colorize: true, translateTime: "SYS:HH:MM:ss" },
      },
    });
  }
  return options.destination ? pino(base, options.destination) : pino(base);
}

/** A logger that writes nothing: the default for library code used without one. */
export const silentLogger: Logger = pino({ level: "silent" });
