/**
 * What schedules look like in the chat: the /schedule prompt (the name, amount, note and
 * the next runs in words), its states, the list of /schedules with their buttons, a held
 * run's question, a reminder, a missed run, and the approvers' card. Callback data carries
 * the schedule's random id (and a run's key), never amounts or numbers.
 */
import { Markup } from "telegraf";
import type { InlineKeyboardButton } from "telegraf/types";
import type { MessageKey, Translate } from "../../i18n.js";
import type { Locale } from "../../model/locale.js";
import { formatPhone } from "../../model/phone.js";
import type { Recurrence, Schedule, ScheduleRun, ScheduleState } from "../../model/schedule.js";
import type { ScheduleRepeats } from "../../payouts/schedule/repeats.js";
import type { WhenProblem } from "../../payouts/schedule/when.js";
import { signatureLines } from "./approval.js";
import { money, type Names, operatorName, personName, STATE_TITLE, type View } from "./common.js";
import { duplicateWarning } from "./pay.js";

/** Callback data of the schedules' buttons. */
export const SCHEDULE_CALLBACK = {
  confirm: (id: string) => `sc:${id}`,
  cancel: (id: string) => `sx:${id}`,
  approve: (id: string) => `sa:${id}`,
  reject: (id: string) => `sj:${id}`,
  pause: (id: string) => `sp:${id}`,
  resume: (id: string) => `sr:${id}`,
  delete: (id: string) => `sd:${id}`,
  sendAnyway: (id: string, key: string) => `ss:${id}:${key}`,
  skip: (id: string, key: string) => `sk:${id}:${key}`,
};

export const SCHEDULE_CALLBACK_PATTERN = {
  confirm: /^sc:([\w-]{6,16})$/,
  cancel: /^sx:([\w-]{6,16})$/,
  approve: /^sa:([\w-]{6,16})$/,
  reject: /^sj:([\w-]{6,16})$/,
  pause: /^sp:([\w-]{6,16})$/,
  resume: /^sr:([\w-]{6,16})$/,
  delete: /^sd:([\w-]{6,16})$/,
  sendAnyway: /^ss:([\w-]{6,16}):(\d{12})$/,
  skip: /^sk:([\w-]{6,16}):(\d{12})$/,
};

const LANGUAGE_TAGS: Record<Locale, string> = { en: "en-GB", fr: "fr-FR" };
const RUN_FORMATS = new Map<string, Intl.DateTimeFormat>();

/**
 * A run's time in words, in the reader's language and TIME_ZONE, with the zone's offset:
 * "Thu 24 Dec 2026, 09:00 UTC+1", "jeu. 24 déc. 2026 à 09:00 UTC+1".
 */
export function runTimeText(t: Translate, ms: number): string {
  const id = `${t.locale}:${t.timeZone}`;
  let format = RUN_FORMATS.get(id);
  if (!format) {
    format = new Intl.DateTimeFormat(LANGUAGE_TAGS[t.locale], {
      timeZone: t.timeZone,
      weekday: "short",
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZoneName: "shortOffset",
    });
    RUN_FORMATS.set(id, format);
  }
  const parts = new Map<string, string>();
  for (const part of format.formatToParts(new Date(ms))) parts.set(part.type, part.value);
  const offset = (parts.get("timeZoneName") ?? "UTC")
    .replace(/^GMT/, "UTC")
    .replace(/\u2212/g, "-")
    .replace(/^UTC[+-]0$/, "UTC");
  const date = `${parts.get("weekday")} ${parts.get("day")} ${parts.get("month")} ${parts.get("year")}`;
  const time = `${parts.get("hour")}:${parts.get("minute")}`;
  return t("schedule.run_time", { date, time, offset });
}

const WEEKDAY_KEYS: readonly MessageKey[] = [
  "schedule.weekday_1",
  "schedule.weekday_2",
  "schedule.weekday_3",
  "schedule.weekday_4",
  "schedule.weekday_5",
  "schedule.weekday_6",
  "schedule.weekday_7",
];

/** How often it runs, in words: "once", "every month on day 24", "every Friday". */
export function recurrenceText(t: Translate, recurrence: Recurrence): string {
  switch (recurrence.kind) {
    case "once":
      return t("schedule.every_once");
    case "monthly":
      return recurrence.day === "last"
        ? t("schedule.every_month_last", { time: recurrence.time })
        : t("schedule.every_month", { day: recurrence.day, time: recurrence.time });
    case "weekly":
      return t("schedule.every_week", {
        weekday: t(WEEKDAY_KEYS[recurrence.weekday - 1] ?? "schedule.weekday_1"),
        time: recurrence.time,
      });
  }
}

function details(t: Translate, schedule: Schedule): string[] {
  if (schedule.batch) {
    // A scheduled batch: its rows are what is paid (its file lists them).
    const { rowCount, fileName } = schedule.batch;
    return [
      t("schedule.batch_rows", { count: rowCount, file: fileName }),
      t("schedule.amount_total", { amount: money(t, schedule.amount) }),
      t("schedule.plan", { plan: recurrenceText(t, schedule.recurrence) }),
    ];
  }
  const lines = [
    t("payout.to", { name: schedule.recipientName }),
    t("payout.number", {
      phone: formatPhone(schedule.phone),
      operator: operatorName(schedule.operator),
    }),
    t("schedule.amount_each", { amount: money(t, schedule.amount) }),
  ];
  if (schedule.note) lines.push(t("payout.note", { note: schedule.note }));
  lines.push(t("schedule.plan", { plan: recurrenceText(t, schedule.recurrence) }));
  return lines;
}

function runLines(t: Translate, runs: ReadonlyArray<{ atMs: number }>): string[] {
  return runs.map((run) => `• ${runTimeText(t, run.atMs)}`);
}

/**
 * The warnings at the top of a /schedule prompt that repeats a payout (within the window) or
 * another schedule: when and by whom, as /pay's; each followed by a blank line.
 */
function repeatWarnings(t: Translate, repeats: ScheduleRepeats | undefined): string[] {
  if (!repeats) return [];
  const lines: string[] = [];
  if (repeats.payout) lines.push(duplicateWarning(t, repeats.payout, repeats.names), "");
  const other = repeats.schedule;
  if (other) {
    lines.push(
      t("schedule.duplicate_schedule", {
        ref: other.id,
        who: personName(t, repeats.names, other.ownerId),
        plan: recurrenceText(t, other.recurrence),
        state: t(STATE_KEYS[other.state]),
      }),
      "",
    );
  }
  return lines;
}

/** The /schedule prompt: who, how much, the plan and the next runs; Confirm / Cancel. */
export function schedulePrompt(
  t: Translate,
  schedule: Schedule,
  runs: ReadonlyArray<{ atMs: number }>,
  options: {
    nowMs: number;
    needsApproval: boolean;
    thresholdText: string;
    repeats?: ScheduleRepeats | undefined;
  },
): View {
  const minutes = Math.max(1, Math.round((schedule.expiresAtMs - options.nowMs) / 60_000));
  const text = [
    ...repeatWarnings(t, options.repeats),
    t("schedule.prompt_title"),
    "",
    ...details(t, schedule),
    "",
    t(runs.length > 1 ? "schedule.next_runs" : "schedule.only_run"),
    ...runLines(t, runs),
    "",
    ...(options.needsApproval
      ? [t("schedule.needs_approval", { threshold: options.thresholdText })]
      : []),
    t("prompt.expires", { minutes, time: t.time(schedule.expiresAtMs) }),
  ].join("\n");
  const keyboard = Markup.inlineKeyboard([
    Markup.button.callback(t.plain("button.confirm"), SCHEDULE_CALLBACK.confirm(schedule.id)),
    Markup.button.callback(t.plain("button.cancel"), SCHEDULE_CALLBACK.cancel(schedule.id)),
  ]).reply_markup;
  return { text, keyboard };
}

const STATE_KEYS: Record<ScheduleState, MessageKey> = {
  awaiting_confirmation: "schedule.state_awaiting_confirmation",
  awaiting_approval: "schedule.state_awaiting_approval",
  active: "schedule.state_active",
  paused: "schedule.state_paused",
  finished: "schedule.state_finished",
  deleted: "schedule.state_deleted",
  cancelled: "schedule.state_cancelled",
  expired: "schedule.state_expired",
  rejected: "schedule.state_rejected",
};

/** A schedule as it stands (the prompt once pressed, a line of /schedules), no buttons. */
export function scheduleStateView(
  t: Translate,
  schedule: Schedule,
  runs: ReadonlyArray<{ atMs: number }>,
): View {
  const lines = [
    t("schedule.title", { ref: schedule.id, state: t(STATE_KEYS[schedule.state]) }),
    ...details(t, schedule),
  ];
  if (schedule.state === "active" || schedule.state === "awaiting_approval") {
    const title = schedule.recurrence.kind === "once" ? "schedule.only_run" : "schedule.next_runs";
    if (runs.length > 0) lines.push(t(title), ...runLines(t, runs));
  }
  if (schedule.pausedBecause === "owner_not_allowed") lines.push(t("schedule.paused_owner"));
  if (schedule.pausedBecause === "staff" && schedule.state === "paused") {
    lines.push(t("schedule.paused_staff"));
  }
  return { text: lines.join("\n") };
}

/** A line of /schedules with the buttons its reader may press. */
export function scheduleListItem(
  t: Translate,
  schedule: Schedule,
  runs: ReadonlyArray<{ atMs: number }>,
  mayChange: boolean,
): View {
  const view = scheduleStateView(t, schedule, runs.slice(0, 1));
  if (!mayChange) return view;
  const buttons: InlineKeyboardButton[] = [];
  if (schedule.state === "active") {
    buttons.push(
      Markup.button.callback(t.plain("button.pause"), SCHEDULE_CALLBACK.pause(schedule.id)),
    );
  }
  if (schedule.state === "paused") {
    buttons.push(
      Markup.button.callback(t.plain("button.resume"), SCHEDULE_CALLBACK.resume(schedule.id)),
    );
  }
  if (["active", "paused", "finished"].includes(schedule.state)) {
    buttons.push(
      Markup.button.callback(t.plain("button.delete"), SCHEDULE_CALLBACK.delete(schedule.id)),
    );
  }
  return buttons.length === 0
    ? view
    : { ...view, keyboard: Markup.inlineKeyboard([buttons]).reply_markup };
}

/** `/schedule` alone, or with a `<when>` it could not read: the syntax with examples. */
export function scheduleUsage(t: Translate, defaultTime: string): string {
  return t("schedule.usage", { time: defaultTime });
}

const WHEN_PROBLEM_KEYS: Record<WhenProblem, MessageKey> = {
  missing: "schedule.when_missing",
  unknown_form: "schedule.when_unknown_form",
  no_such_date: "schedule.when_no_such_date",
  past: "schedule.when_past",
  bad_month_day: "schedule.when_bad_month_day",
  bad_weekday: "schedule.when_bad_weekday",
  bad_time: "schedule.when_bad_time",
};

export function whenProblemText(t: Translate, problem: WhenProblem, word?: string): string {
  return t(WHEN_PROBLEM_KEYS[problem], { word: word ?? "" });
}

const HOLD_KEYS = {
  name_changed: "schedule.held_name_changed",
  no_account: "schedule.held_no_account",
  operator_unavailable: "schedule.held_operator",
  over_limit: "schedule.held_over_limit",
  lookup_failed: "schedule.held_lookup_failed",
  duplicate: "schedule.held_duplicate",
} as const satisfies Record<NonNullable<ScheduleRun["heldBecause"]>, MessageKey>;

/** A held run: why, and Send anyway / Skip (a run over a daily cap is only told). */
export function heldRunView(t: Translate, schedule: Schedule, run: ScheduleRun): View {
  const reason = run.heldBecause ?? "lookup_failed";
  const text = [
    t("schedule.held_title", { time: runTimeText(t, run.atMs) }),
    t(HOLD_KEYS[reason], {
      saved: schedule.recipientName,
      current: run.currentName ?? "",
      when: run.repeatsAtMs === undefined ? "?" : t.time(run.repeatsAtMs),
      state: run.repeatsState === undefined ? "?" : t(STATE_TITLE[run.repeatsState]),
    }),
    "",
    ...details(t, schedule),
  ].join("\n");
  if (run.state !== "held") return { text };
  const keyboard = Markup.inlineKeyboard([
    Markup.button.callback(
      t.plain("button.send_anyway"),
      SCHEDULE_CALLBACK.sendAnyway(schedule.id, run.key),
    ),
    Markup.button.callback(t.plain("button.skip"), SCHEDULE_CALLBACK.skip(schedule.id, run.key)),
  ]).reply_markup;
  return { text, keyboard };
}

/** The reminder before a run, with Skip this run. */
export function reminderView(t: Translate, schedule: Schedule, run: ScheduleRun): View {
  const text = [
    t("schedule.reminder", { time: runTimeText(t, run.atMs) }),
    "",
    ...details(t, schedule),
  ].join("\n");
  if (run.state !== "due") return { text };
  const keyboard = Markup.inlineKeyboard([
    Markup.button.callback(
      t.plain("button.skip_run"),
      SCHEDULE_CALLBACK.skip(schedule.id, run.key),
    ),
  ]).reply_markup;
  return { text, keyboard };
}

/** A run missed (no replica ran within SCHEDULE_CATCH_UP_HOURS), or one that did not go. */
export function runReportView(
  t: Translate,
  schedule: Schedule,
  atMs: number,
  key: "schedule.missed" | "schedule.not_sent",
): View {
  return { text: [t(key, { time: runTimeText(t, atMs) }), "", ...details(t, schedule)].join("\n") };
}

/**
 * To the owner: a run interrupted while it was being sent (the bot stopped), as settled:
 * sent (its payout's own messages tell how it ends) or not sent.
 */
export function interruptedRunView(t: Translate, schedule: Schedule, run: ScheduleRun): View {
  const time = runTimeText(t, run.atMs);
  const text =
    run.state === "sent" && run.payoutId !== undefined
      ? t("schedule.interrupted_sent", { time, id: run.payoutId })
      : t("schedule.interrupted_not_sent", { time });
  return { text: [text, "", ...details(t, schedule)].join("\n") };
}

/** To the owner and the admins: paused because its owner may no longer pay. */
export function pausedView(t: Translate, schedule: Schedule): View {
  return {
    text: [
      t("schedule.paused_title", { ref: schedule.id }),
      t("schedule.paused_owner"),
      "",
      ...details(t, schedule),
    ].join("\n"),
  };
}

/** The approvers' card: the plan, Approve / Reject (or, once decided, what came of it). */
export function scheduleApprovalCard(
  t: Translate,
  schedule: Schedule,
  runs: ReadonlyArray<{ atMs: number }>,
  ownerName: string,
  /** The signers' names, for a rule of several signatures (APPROVAL_RULES). */
  names: Names = new Map(),
): View {
  const waiting = schedule.state === "awaiting_approval";
  const text = [
    t("schedule.approval_title", { who: ownerName }),
    "",
    ...details(t, schedule),
    "",
    t("schedule.next_runs"),
    ...runLines(t, runs),
    ...(waiting ? signatureLines(t, schedule, names) : []),
  ].join("\n");
  if (schedule.state !== "awaiting_approval") {
    return { text: `${text}\n\n${t(STATE_KEYS[schedule.state])}` };
  }
  const keyboard = Markup.inlineKeyboard([
    Markup.button.callback(t.plain("button.approve"), SCHEDULE_CALLBACK.approve(schedule.id)),
    Markup.button.callback(t.plain("button.reject"), SCHEDULE_CALLBACK.reject(schedule.id)),
  ]).reply_markup;
  return { text, keyboard };
}
