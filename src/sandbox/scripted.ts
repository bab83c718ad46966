/**
 * Scripted numbers, like the test card numbers of card networks: each one always ends the
 * same way, so tests and demos can ask for a failure or a payment that never settles.
 * Every other valid MTN/Orange number has an account, a stable generated name, and succeeds.
 */
import { createHash } from "node:crypto";
import type { TelecomOperator, UserInfo } from "./spec.js";

/** How a payment to or from a number ends. `pending` never settles; `no_account` is refused. */
export type ScriptedOutcome = "success" | "failed" | "pending" | "canceled" | "no_account";

export interface ScriptedNumber {
  phone: string;
  operator: TelecomOperator;
  /** Human text for the README and the demo. */
  behaviour: string;
  outcome: ScriptedOutcome;
  /** The registered name, or `null` when the number has no mobile money account. */
  name: UserInfo | null;
}

const BEHAVIOURS: Record<ScriptedOutcome, string> = {
  success: "registered name; payments succeed",
  failed: "registered name; payments fail",
  pending: "registered name; payments stay pending forever",
  canceled: "registered name; payments are cancelled (status canceled)",
  no_account: "no mobile money account: userinfo 404, payments 404",
};

function scripted(
  phone: string,
  operator: TelecomOperator,
  outcome: ScriptedOutcome,
  fullName: string | null,
): ScriptedNumber {
  const name = fullName === null ? null : splitName(fullName);
  return { phone, operator, behaviour: BEHAVIOURS[outcome], outcome, name };
}

function splitName(fullName: string): UserInfo {
  const space = fullName.indexOf(" ");
  return { firstName: fullName.slice(0, space), lastName: fullName.slice(space + 1) };
}

export const SCRIPTED_NUMBERS: ReadonlyArray<ScriptedNumber> = [
  scripted("237670000001", "mtn", "success", "Jean-Paul Mbarga"),
  scripted("237690000001", "orange", "success", "Aïcha Nkoulou"),
  scripted("237670000002", "mtn", "failed", "Brice Fotso"),
  scripted("237690000002", "orange", "failed", "Mireille Ngo Bassa"),
  scripted("237670000003", "mtn", "pending", "Hervé Tchamba"),
  scripted("237690000003", "orange", "pending", "Clarisse Ewane"),
  scripted("237670000004", "mtn", "no_account", null),
  scripted("237690000004", "orange", "no_account", null),
  scripted("237670000005", "mtn", "canceled", "Patrice Kamga"),
  scripted("237690000005", "orange", "canceled", "Sandrine Abega"),
];

const BY_PHONE = new Map(SCRIPTED_NUMBERS.map((entry) => [entry.phone, entry]));

const FIRST_NAMES = [
  "Jean",
  "Marie",
  "Paul",
  "Christelle",
  "Serge",
  "Nadège",
  "Armand",
  "Josiane",
  "Blaise",
  "Estelle",
  "Cédric",
  "Larissa",
  "Thierry",
  "Rosine",
  "Fabrice",
  "Odile",
];
const LAST_NAMES = [
  "Atangana",
  "Essomba",
  "Njoya",
  "Onana",
  "Ngono",
  "Manga",
  "Ndjock",
  "Eyenga",
  "Tsafack",
  "Nguemo",
  "Fouda",
  "Mvondo",
  "Tchinda",
  "Bello",
  "Nana",
  "Ekotto",
];

/** A name that depends only on the number, so every run and every process agrees. */
export function generatedNameOf(phone: string): UserInfo {
  const digest = createHash("sha256").update(phone).digest();
  const first = FIRST_NAMES[(digest[0] ?? 0) % FIRST_NAMES.length] ?? "Jean";
  const last = LAST_NAMES[(digest[1] ?? 0) % LAST_NAMES.length] ?? "Atangana";
  return { firstName: first, lastName: last };
}

/** How payments with this (valid, normalized) number end. */
export function outcomeOf(phone: string): ScriptedOutcome {
  return BY_PHONE.get(phone)?.outcome ?? "success";
}

/** The name registered to this (valid, normalized) number, or `null` when it has no account. */
export function registeredNameOf(phone: string): UserInfo | null {
  const entry = BY_PHONE.get(phone);
  if (entry) return entry.name === null ? null : { ...entry.name };
  return generatedNameOf(phone);
}
