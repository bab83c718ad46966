/**
 * The demo chat's own commands: `:role` (who you are to the bot), `:suspend` and
 * `:restore` (an operator's payouts or collections, through the sandbox, as its admin
 * surface `POST /_sandbox/availability` does, to see the bot's alert), and where the
 * documents the bot sends (an /export) are saved.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { App } from "../app.js";
import type { SandboxHandle } from "../sandbox/index.js";
import type { ChatCommand } from "./demo-chat.js";
import { DEMO_ROLES, DEMO_USER, type DemoRole, isDemoRole } from "./demo-options.js";
import { helpLine, ROLE_HELP } from "./demo-render.js";
import type { StoredFile } from "./telegram-emulator/index.js";

async function roleOf(app: App): Promise<DemoRole> {
  return (await app.stores.staff.get(DEMO_USER.id)) ?? "stranger";
}

async function setRole(app: App, role: DemoRole): Promise<void> {
  if (role === "stranger") await app.stores.staff.remove(DEMO_USER.id);
  else await app.stores.staff.set(DEMO_USER.id, role);
}

function roleCommand(app: App): ChatCommand {
  return {
    help: ROLE_HELP,
    async run([wanted]) {
      if (wanted === undefined) return `Your role: ${await roleOf(app)}.`;
      const role = wanted.toLowerCase();
      if (!isDemoRole(role)) return `Roles: ${DEMO_ROLES.join(", ")}.`;
      await setRole(app, role);
      return role === "stranger"
        ? "You are now a stranger: the bot no longer knows you."
        : `You are now ${role === "admin" || role === "approver" ? "an" : "a"} ${role}.`;
    },
  };
}

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

export function demoCommands(
  app: App,
  sandbox: SandboxHandle,
): Readonly<Record<string, ChatCommand>> {
  const checkSeconds = app.config.reports.availabilityCheckMs / 1000;
  return {
    role: roleCommand(app),
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
