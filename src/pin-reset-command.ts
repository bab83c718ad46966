/**
 * `pin-reset <telegram user id>` on the server's console (`npm run pin-reset <id>`, or
 * `node dist/src/main.js pin-reset <id>` in the image): resets anyone's step-up PIN, an
 * admin's own included. In the chat an admin resets only someone else's PIN; a sole admin
 * has no one else, and shell access to the server is the second factor that stands in.
 * Like a reset in the chat, it keeps a lock, is audited (by the system), and the person and
 * every admin are told in the chat (the running bot's notifier sends the queued notice).
 */
import { connectStores } from "./app-storage.js";
import { loadConfig } from "./config/index.js";
import { withEnvFile } from "./env-file.js";
import { createLogger } from "./logger.js";
import { Pins } from "./payouts/pin.js";
import { argon2Hasher } from "./payouts/pin-hash.js";

export const PIN_RESET_USAGE = "usage: main.js pin-reset <telegram user id>";

const USER_ID = /^\d{1,15}$/;

/** What the command printed, and its exit code (0 done or nothing to do, 2 bad usage). */
export interface PinResetOutput {
  exitCode: number;
  message: string;
}

/** Resets the PIN of the user named by `argv[0]` on the Redis the environment names. */
export async function runPinReset(
  env: NodeJS.ProcessEnv,
  argv: readonly string[],
): Promise<PinResetOutput> {
  const [target, ...rest] = argv;
  if (target === undefined || !USER_ID.test(target) || rest.length > 0) {
    return { exitCode: 2, message: PIN_RESET_USAGE };
  }
  const userId = Number(target);
  const config = loadConfig(withEnvFile(env).env, "console");
  const logger = createLogger({ level: "warn" });
  const { stores } = await connectStores(config, logger);
  try {
    const pins = new Pins({ stores, hasher: argon2Hasher, now: Date.now });
    const result = await pins.resetFromConsole(userId);
    if (result.outcome !== "reset") {
      return { exitCode: 0, message: `User ${userId} has no PIN set: nothing to reset.` };
    }
    const status = await pins.status(userId);
    const lock =
      status.kind === "locked"
        ? ` It stays locked until ${new Date(status.untilMs).toISOString()}: a reset does not lift a lock.`
        : "";
    return {
      exitCode: 0,
      message: `PIN of user ${userId} reset. They and every admin are told in the chat; they set a new one in the Mini App the next time a Confirm asks for it.${lock}`,
    };
  } finally {
    await stores.close();
  }
}
