/**
 * The demo chat's own commands (`:role` is the cast's, in demo-chat): `:file` (a document
 * from this machine; the emulator's chat has it too), `:suspend` and
 * `:restore` (an operator's payouts or collections, through the sandbox, as its admin
 * surface `POST /_sandbox/availability` does, to see the bot's alert), and where the
 * documents the bot sends (an /export) are saved.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, extname, join, resolve } from "node:path";
import type { SandboxHandle } from "../sandbox/index.js";
import type { ChatCommand } from "./demo-chat.js";
import { helpLine } from "./demo-render.js";
import type { StoredFile } from "./telegram-emulator/index.js";

const OPERATORS = { mtn: "mtn", orange: "orange" } as const;
const OPERATIONS = {
  disbursement: "disbursement",
  disbursements: "disbursement",
  payouts: "disbursement",
  collection: "collection",
  collections: "collection",
} as const;

function isKey<T extends object>(table: T, key: string): key is Extract<keyof T, string> {
  return Object.hasOwn(table, key);
}

/** `:suspend` (SUSPENDED) or `:restore` (OPERATIONAL) an operator's operation in the sandbox. */
function availabilityCommand(
  sandbox: SandboxHandle,
  status: "SUSPENDED" | "OPERATIONAL",
  checkSeconds: number,
): ChatCommand {
  const name = status === "SUSPENDED" ? ":suspend" : ":restore";
  return {
    help: helpLine(
      `${name} OP [KIND]`,
      `${status === "SUSPENDED" ? "suspend" : "restore"} mtn|orange disbursement|collection in the sandbox (default disbursement)`,
    ),
    async run([operatorArg = "", operationArg = "disbursement"]) {
      const operator = operatorArg.toLowerCase();
      const operation = operationArg.toLowerCase();
      if (!isKey(OPERATORS, operator) || !isKey(OPERATIONS, operation)) {
        return `Usage: ${name} mtn|orange [disbursement|collection], e.g. ${name} mtn disbursement`;
      }
      sandbox.setAvailability(OPERATORS[operator], OPERATIONS[operation], status);
      return `The sandbox now says ${operator} ${OPERATIONS[operation]} is ${status}. The bot checks every ${checkSeconds} s and alerts the admins on a change.`;
    },
  };
}

/** Telegram's limit on a file a bot downloads; the bot itself refuses batch files over 1 MB. */
const MAX_FILE_BYTES = 20 * 1024 * 1024;

/**
 * `:file PATH [caption]`: sends a file from this machine as a document message, as a
 * Telegram app would (a `.csv` starts a batch). PATH is relative to the working directory.
 */
export function fileCommand(cwd = process.cwd()): ChatCommand {
  return {
    help: helpLine(
      ":file PATH [CAPTION]",
      "send a file as a document, e.g. :file examples/payroll.csv (a batch)",
    ),
    async run([path = "", ...caption], chat) {
      if (path === "") return "Usage: :file PATH [CAPTION], e.g. :file examples/payroll.csv";
      const full = resolve(cwd, path);
      let bytes: Buffer;
      try {
        if (statSync(full).size > MAX_FILE_BYTES)
          return `${path} is over 20 MB: Telegram would refuse it.`;
        bytes = readFileSync(full);
      } catch (error) {
        const reason =
          error instanceof Error && "code" in error ? String(error.code) : String(error);
        return `Cannot read ${full} (${reason}).`;
      }
      const name = basename(full);
      const type = extname(name).toLowerCase() === ".csv" ? "text/csv" : "application/octet-stream";
      const text = caption.join(" ") || undefined;
      chat.note(
        `Sending ${name} (${bytes.length} bytes)${text ? ` with the caption "${text}"` : ""}.`,
      );
      await chat.send(() => chat.user.uploadDocument(name, type, bytes, text));
      return undefined;
    },
  };
}

/** `checkSeconds`: how often the bot checks availability (AVAILABILITY_CHECK_SECONDS). */
export function demoCommands(
  sandbox: SandboxHandle,
  checkSeconds: number,
): Readonly<Record<string, ChatCommand>> {
  return {
    file: fileCommand(),
    suspend: availabilityCommand(sandbox, "SUSPENDED", checkSeconds),
    restore: availabilityCommand(sandbox, "OPERATIONAL", checkSeconds),
  };
}

/** Saves each document the bot sends into `dir` (kept after the demo), and says where. */
export function documentSaver(dir: string): (file: StoredFile) => string {
  return (file) => {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, basename(file.fileName));
    writeFileSync(path, file.bytes);
    return path;
  };
}
