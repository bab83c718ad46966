/** The emulator's options resolved once, with their defaults, and checked. */
import {
  DEFAULT_EMULATOR_TOKEN,
  type ResolvedEmulatorOptions,
  type TelegramEmulatorOptions,
} from "./types.js";

export function resolveOptions(options: TelegramEmulatorOptions): ResolvedEmulatorOptions {
  const resolved: ResolvedEmulatorOptions = {
    token: options.token ?? DEFAULT_EMULATOR_TOKEN,
    botUsername: options.botUsername ?? "emulated_bot",
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 0,
    maxPollWaitMs: options.maxPollWaitMs ?? 25_000,
    webhookRetryDelayMs: options.webhookRetryDelayMs ?? 100,
    webhookMaxAttempts: options.webhookMaxAttempts ?? 3,
    webhookTimeoutMs: options.webhookTimeoutMs ?? 10_000,
  };
  if (!/^\d+:[A-Za-z0-9_-]+$/.test(resolved.token)) {
    throw new TypeError("token must look like a bot token: <digits>:<letters, digits, _ or ->");
  }
  const { maxPollWaitMs, webhookRetryDelayMs, webhookMaxAttempts, webhookTimeoutMs } = resolved;
  if (![maxPollWaitMs, webhookRetryDelayMs, webhookTimeoutMs].every((ms) => ms >= 0)) {
    throw new TypeError("durations must be zero or more milliseconds");
  }
  if (!Number.isInteger(webhookMaxAttempts) || webhookMaxAttempts < 1) {
    throw new TypeError("webhookMaxAttempts must be a whole number of at least 1");
  }
  return resolved;
}
