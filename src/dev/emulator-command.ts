/**
 * `npm run emulator`: a local Telegram Bot API on its own, with the terminal chat of the
 * demo, for rehearsing the production command. It prints the TELEGRAM_API_ROOT and token
 * to give `npm start`; with `npm run sandbox` as the Payment API, the real bot then runs
 * end to end on this machine, and the person at the terminal chats with it.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../config/index.js";
import { StartupError } from "../startup-checks.js";
import { DemoChat } from "./demo-chat.js";
import { documentSaver, fileCommand } from "./demo-commands.js";
import { DEMO_USER, languageOf, readFlags } from "./demo-options.js";
import { bold, type DemoIo, isTty, type Style } from "./demo-render.js";
import { Signals } from "./stop-signals.js";
import { DEFAULT_EMULATOR_TOKEN, startTelegramEmulator } from "./telegram-emulator/index.js";
import { miniAppLines, pinCommand, webAppOpener } from "./webapp-link.js";

export const DEFAULT_EMULATOR_PORT = 8081;

export const EMULATOR_USAGE = [
  "usage: npm run emulator -- [--user ID] [--lang en|fr]",
  "",
  `  --user ID     your numeric Telegram user id in the chat (default ${DEMO_USER.id})`,
  "  --lang CODE   your Telegram language, en or fr (default en)",
  "  -h, --help    this text",
  "",
  "Environment (all optional):",
  `  EMULATOR_HOST, EMULATOR_PORT   where it listens (default 127.0.0.1:${DEFAULT_EMULATOR_PORT})`,
  "  EMULATOR_TOKEN                 the bot token it accepts (default a test token)",
  "  EMULATOR_FILES_DIR             where files the bot sends are saved, kept",
  `                                 (default ${join(tmpdir(), "payout-bot-emulator-files")})`,
].join("\n");

export interface EmulatorCommandOptions {
  host: string;
  port: number;
  token: string;
  userId: number;
  languageCode: string;
  /** Where documents the bot sends are saved (EMULATOR_FILES_DIR). */
  filesDir: string;
  help: boolean;
}

/** Reads the flags and EMULATOR_* variables; throws a ConfigError listing every problem. */
export function parseEmulatorOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): EmulatorCommandOptions {
  const problems: string[] = [];
  const flags = readFlags(argv, ["user", "lang"], problems);
  const languageCode = languageOf(flags.values.get("lang") ?? "en", problems);
  const user = flags.values.get("user") ?? String(DEMO_USER.id);
  if (!/^\d{1,15}$/.test(user))
    problems.push(`--user: must be a numeric Telegram id (got "${user}")`);
  const port = (env.EMULATOR_PORT ?? "").trim() || String(DEFAULT_EMULATOR_PORT);
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65_535) {
    problems.push(`EMULATOR_PORT: must be a whole number from 0 to 65535 (got "${port}")`);
  }
  const token = (env.EMULATOR_TOKEN ?? "").trim() || DEFAULT_EMULATOR_TOKEN;
  if (!/^\d+:[A-Za-z0-9_-]{20,}$/.test(token)) {
    problems.push("EMULATOR_TOKEN: must look like a bot token (digits:20 or more letters)");
  }
  if (problems.length > 0 || languageCode === undefined) throw new ConfigError(problems);
  return {
    host: (env.EMULATOR_HOST ?? "").trim() || "127.0.0.1",
    port: Number(port),
    token,
    userId: Number(user),
    languageCode,
    filesDir: env.EMULATOR_FILES_DIR?.trim() || join(tmpdir(), "payout-bot-emulator-files"),
    help: flags.help,
  };
}

/** The arguments after the `emulator` command in `process.argv`. */
function emulatorArgv(argv: readonly string[]): string[] {
  const at = argv.indexOf("emulator");
  return at === -1 ? [] : argv.slice(at + 1);
}

/** The page and section that walk through the rehearsal (a test checks it exists). */
export const REHEARSAL_PAGE = "docs/demo.md";
export const REHEARSAL_SECTION = '"Rehearse `npm start` on one machine"';

/** What to set for `npm start`, and how to run the rest on this machine. */
function emulatorBanner(
  apiRoot: string,
  token: string,
  user: { id: number; firstName: string; languageCode: string },
  style: Style,
): string {
  const userId = user.id;
  return [
    `${bold("Telegram Bot API emulator", style)} listening on ${apiRoot}`,
    "Give the bot:",
    `  TELEGRAM_API_ROOT=${apiRoot}`,
    `  TELEGRAM_BOT_TOKEN=${token}`,
    `  STAFF=${userId}:admin        (you, in this chat: Telegram id ${userId})`,
    "",
    `To rehearse \`npm start\` on this machine, follow ${REHEARSAL_PAGE}, ${REHEARSAL_SECTION}:`,
    "  1. In a second terminal, the Payment API: npm run sandbox, with SANDBOX_CALLBACK_URL set to",
    "     the bot's webhook (http://127.0.0.1:8080/webhooks/payments with the bot's defaults).",
    "     It prints what to give the bot: its URL (PAYMENT_API_BASE_URL), its API key",
    "     (PAYMENT_API_KEY) and where its public key is (save it to a file for",
    "     PAYMENT_SIGNATURE_PUBLIC_KEY).",
    "  2. In a third terminal, with Redis running: npm start with the variables above and those.",
    "",
    "",
    // The bot started with `npm start` serves the page (built by npm run build) on its
    // HTTP server, 127.0.0.1:8080 with the defaults.
    ...miniAppLines(`http://127.0.0.1:8080/app/`, token, user),
    "  (the bot serves it once started; another HTTP_PORT: change 8080 in the address)",
    "  For the PIN step (STEP_UP_THRESHOLD_XAF), start the bot with WEBAPP_URL=http://127.0.0.1:8080/app/",
    "  (plain http is accepted for a loopback host only); a 🔐 button then prints its address.",
    "",
    "Then type here what you would type in Telegram (/help, /pay 670000001 5000).",
    "Type a button's number to press it; :help for chat commands; :quit or Ctrl-C to leave.",
  ].join("\n");
}

/**
 * Runs the emulator and its terminal chat until `:quit`, end of input or SIGINT/SIGTERM,
 * then closes it. Flags come from `io.argv` (default: what follows `emulator` in
 * `process.argv`). Throws a ConfigError for bad flags or settings.
 */
export async function runEmulatorCommand(
  env: NodeJS.ProcessEnv,
  io?: Partial<DemoIo> & { argv?: readonly string[] },
): Promise<void> {
  const input = io?.input ?? process.stdin;
  const output = io?.output ?? process.stdout;
  const options = parseEmulatorOptions(io?.argv ?? emulatorArgv(process.argv), env);
  if (options.help) {
    output.write(`${EMULATOR_USAGE}\n`);
    return;
  }
  const signals = new Signals(output);
  const emulator = await startTelegramEmulator({
    host: options.host,
    port: options.port,
    token: options.token,
  }).catch((error: unknown) => {
    signals.unhook();
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(
      `the emulator could not listen on ${options.host}:${options.port} (${reason}); set EMULATOR_PORT`,
      { cause: error },
    );
  });
  try {
    const style: Style = { ansi: isTty(output) && !env.NO_COLOR };
    const user = emulator.user({
      id: options.userId,
      firstName: DEMO_USER.firstName,
      username: DEMO_USER.username,
      languageCode: options.languageCode,
    });
    const chat = new DemoChat({
      emulator,
      user,
      io: { input, output },
      style,
      interactive: isTty(input) && isTty(output),
      label: "emulator",
      commands: {
        file: fileCommand(),
        pin: pinCommand(emulator.token, (chatId) => emulator.messages(chatId)),
      },
      opens: webAppOpener(emulator.token, {
        hint: "Or type :pin and six digits: the chat types them in that page, as a browser would.",
      }),
      saveDocument: documentSaver(options.filesDir),
    });
    // The bot's first call when it starts: tell the person their bot is there.
    emulator.on("call", (call) => {
      if (call.method.toLowerCase() === "getme") chat.say(`(emulator) A bot connected (getMe).`);
    });
    signals.onSignal(() => chat.end("interrupt"));
    output.on("error", () => chat.end("end-of-input"));
    if (!signals.received) {
      const person = {
        id: options.userId,
        firstName: DEMO_USER.firstName,
        languageCode: options.languageCode,
      };
      chat.start(emulatorBanner(emulator.apiRoot, emulator.token, person, style));
      await chat.finished;
    }
  } finally {
    await emulator.close();
    signals.unhook();
  }
  output.write("Stopped. Bye.\n");
}
