/**
 * The plan of a batch file captioned `/schedule WHEN` (a scheduled batch, payroll): WHEN is
 * read exactly as /schedule's (payouts/schedule/when.ts); a caption that names no valid
 * WHEN (or says more) explains the syntax, and nothing is stored.
 */
import type { Recurrence } from "../../../model/schedule.js";
import { parseWhen } from "../../../payouts/schedule/when.js";
import type { BotContext } from "../../context.js";
import { whenProblemText } from "../../views/schedule.js";

export type Plan =
  | { outcome: "none" }
  | { outcome: "plan"; recurrence: Recurrence }
  | { outcome: "refused"; text: (ctx: BotContext) => string };

/**
 * The plan of a file captioned `/schedule WHEN` (none without such a caption): WHEN read
 * exactly as /schedule's; a caption that names no valid WHEN (or more) explains the syntax.
 */
export function planOf(
  caption: string | undefined,
  settings: { timeZone: string; defaultTime: string },
  nowMs: number,
): Plan {
  const words = (caption ?? "").split(/\s+/).filter((word) => word !== "");
  const command = words[0]?.toLowerCase().split("@")[0];
  if (command !== "/schedule") return { outcome: "none" };
  const { timeZone, defaultTime } = settings;
  const usage = (ctx: BotContext) => ctx.t("schedule.batch_usage", { time: defaultTime });
  const when = parseWhen(words.slice(1), { zone: timeZone, nowMs, defaultTime });
  if (when.outcome === "refused") {
    const problem = when.problem;
    const word = when.word;
    return {
      outcome: "refused",
      text: (ctx) =>
        problem === "missing"
          ? usage(ctx)
          : `${whenProblemText(ctx.t, problem, word)}\n\n${usage(ctx)}`,
    };
  }
  if (when.words < words.length - 1) return { outcome: "refused", text: usage };
  return { outcome: "plan", recurrence: when.recurrence };
}
