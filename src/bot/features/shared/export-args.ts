/**
 * What follows /export: `[audit] [FROM] [TO]`, days as YYYY-MM-DD in TIME_ZONE. No day is
 * today; one day is that day; two are a period, both days included.
 */
import { type Day, parseDay } from "../../../time.js";

export type ExportArgs =
  | { ok: true; what: "payouts" | "audit"; from: Day; to: Day }
  | { ok: false; problem: "usage" | "order" }
  | { ok: false; problem: "date"; text: string };

export function parseExportArgs(payload: string, today: Day): ExportArgs {
  const words = payload.split(/\s+/).filter((word) => word !== "");
  const what = words[0]?.toLowerCase() === "audit" ? "audit" : "payouts";
  if (what === "audit") words.shift();
  if (words.length > 2) return { ok: false, problem: "usage" };
  const days: Day[] = [];
  for (const word of words) {
    const day = parseDay(word);
    if (day === undefined) return { ok: false, problem: "date", text: word };
    days.push(day);
  }
  const from = days[0] ?? today;
  const to = days[1] ?? from;
  if (from > to) return { ok: false, problem: "order" };
  return { ok: true, what, from, to };
}

/** How a period reads in messages and file names: one day, or `FROM – TO`. */
export function periodText(from: Day, to: Day, separator = " – "): string {
  return from === to ? from : `${from}${separator}${to}`;
}
