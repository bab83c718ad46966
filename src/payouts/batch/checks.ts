/**
 * The checks of a batch's rows that need no one else: each row read like /pay reads its
 * arguments (number, operator, amount, note), the same number and amount twice in the
 * file, and whether the registered name is the one the payer expected. Pure.
 */
import type { BatchRow } from "../../model/batch.js";
import { parseAmount } from "../../model/money.js";
import { parsePhone } from "../../model/phone.js";
import { parseAlias } from "../../model/recipient.js";
import { cleanLine, cleanNote, MAX_NAME_LENGTH } from "../../model/text.js";
import { looksLikeAlias } from "../recipients.js";
import type { BatchFileRow } from "./file.js";

/** A saved recipient a batch row may name by its alias (the recipient column). */
export interface RowRecipient {
  phone: string;
  /** The name it was saved with: the row expects it, unless the file names another. */
  savedName: string;
}

/**
 * A row as read from the file, checked on its own and against the rows before it. A cell
 * of the number column that reads as an alias is looked up in `saved` (alias key → saved
 * recipient); one that is not there is the row's problem.
 */
export function checkRows(
  rows: readonly BatchFileRow[],
  saved: ReadonlyMap<string, RowRecipient> = new Map(),
): BatchRow[] {
  const seen = new Map<string, number>();
  return rows.map((input) => {
    const row = readRow(withRecipient(input, saved));
    if (row.problem || row.phone === undefined || row.amount === undefined) return row;
    const key = `${row.phone}:${row.amount}`;
    const first = seen.get(key);
    if (first !== undefined) {
      return { ...row, checked: true, problem: "duplicate", problemDetail: String(first) };
    }
    seen.set(key, row.row);
    return row;
  });
}

/** The alias keys the rows' number cells name, for the caller to look up. */
export function aliasKeysOf(rows: readonly BatchFileRow[]): string[] {
  const found = new Set<string>();
  for (const row of rows) {
    if (!looksLikeAlias(row.phone)) continue;
    const alias = parseAlias(row.phone);
    if (alias.ok) found.add(alias.key);
  }
  return [...found];
}

/** A row to read, with the alias its number came from (`typed`) or the unknown one it names. */
type ReadInput = BatchFileRow & { typed?: string; unknownAlias?: string };

/** A row whose number cell is an alias, with the saved number (and name) in its place. */
function withRecipient(input: BatchFileRow, saved: ReadonlyMap<string, RowRecipient>): ReadInput {
  if (!looksLikeAlias(input.phone)) return input;
  const alias = parseAlias(input.phone);
  const recipient = alias.ok ? saved.get(alias.key) : undefined;
  if (!recipient) return { ...input, unknownAlias: cleanLine(input.phone, MAX_NAME_LENGTH) };
  return {
    ...input,
    typed: input.phone,
    phone: recipient.phone,
    name: input.name ?? recipient.savedName,
  };
}

function readRow(input: ReadInput): BatchRow {
  const note = cleanNote(input.note);
  const expectedName = cleanLine(input.name, MAX_NAME_LENGTH);
  const row: BatchRow = {
    row: input.row,
    phoneText: input.typed ?? input.phone,
    amountText: input.amount,
    ...(note ? { note } : {}),
    ...(expectedName ? { expectedName } : {}),
  };
  if (input.unknownAlias !== undefined) {
    return { ...row, checked: true, problem: "unknown_alias", problemDetail: input.unknownAlias };
  }
  const phone = parsePhone(input.phone);
  if (!phone.ok) {
    return { ...row, checked: true, problem: "bad_phone", problemDetail: phone.problem };
  }
  const amount = parseAmount(input.amount);
  const read = { ...row, phone: phone.phone, operator: phone.operator };
  if (!amount.ok) {
    return { ...read, checked: true, problem: "bad_amount", problemDetail: amount.problem };
  }
  return { ...read, amount: amount.amount };
}

/** Lowercase words without accents or punctuation: how names are compared. */
function words(name: string): string[] {
  return name
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
}

/**
 * True when the registered name matches the one the payer expected: every word the payer
 * wrote is one of the registered name's words, in any order, whatever the case or accents
 * ("jean dupont" matches "DUPONT Jean-Marc"; "Paul" does not match "Jean Dupont").
 */
export function namesMatch(expected: string, registered: string): boolean {
  const expectedWords = words(expected);
  const registeredWords = new Set(words(registered));
  return expectedWords.length > 0 && expectedWords.every((word) => registeredWords.has(word));
}

/** A row the checks found payable: its number, operator and amount are known. */
export type PayableRow = BatchRow & Required<Pick<BatchRow, "phone" | "operator" | "amount">>;

export function isPayable(row: BatchRow): row is PayableRow {
  return (
    row.problem === undefined &&
    row.phone !== undefined &&
    row.operator !== undefined &&
    row.amount !== undefined
  );
}

/** What a batch comes to: the rows to pay and their total. */
export function payableOf(rows: readonly BatchRow[]): { payableRows: number; totalXaf: number } {
  const payable = rows.filter(isPayable);
  return {
    payableRows: payable.length,
    totalXaf: payable.reduce((sum, row) => sum + row.amount, 0),
  };
}
