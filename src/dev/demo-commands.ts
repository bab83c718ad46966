/**
 * The demo chat's own commands (`:role` is the cast's, in demo-chat): `:suspend` and
 * `:restore` (an operator's payouts or collections, through the sandbox, as its admin
 * surface `POST /_sandbox/availability` does, to see the bot's alert), and where the
 * documents the bot sends (an /export) are saved.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
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

/** `checkSeconds`: how often the bot checks availability (AVAILABILITY_CHECK_SECONDS). */
export function demoCommands(
  sandbox: SandboxHandle,
  checkSeconds: number,
): Readonly<Record<string, ChatCommand>> {
  return {
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
