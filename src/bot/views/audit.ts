/**
 * /audit: pages of the audit trail, newest first, in the reader's language: when, what
 * (the action translated; an action this version does not know is shown as written), who
 * (by first name where the bot knows it, and role), on which payout or batch, how much,
 * the masked number, the states before and after, and any other facts.
 */
import { Markup } from "telegraf";
import { escapeHtml, html, type MessageKey, type Translate } from "../../i18n.js";
import type { AuditAction, AuditEntry } from "../../model/audit.js";
import { knownStatus } from "../../model/payment-terms.js";
import { isRole } from "../../model/roles.js";
import { clampHtml } from "../telegram/clamp.js";
import { money, STATE_TITLE, type View } from "./common.js";

/** Entries a page shows by default, and at most (two lines each fit one message). */
export const AUDIT_PAGE_SIZE = 10;
export const AUDIT_MAX_PAGE_SIZE = 20;
/** Room kept under Telegram's limit: a page that would be longer shows fewer entries. */
const PAGE_TEXT_LIMIT = 3800;

/** Older/Newer: the page size and the entry the next page starts after. */
export const AUDIT_CALLBACK = {
  older: (size: number, entryId: string) => `ao:${size}:${entryId}`,
  newer: (size: number, entryId: string) => `an:${size}:${entryId}`,
};
export const AUDIT_CALLBACK_PATTERN = /^a([on]):(\d{1,2}):(\d{1,15}-\d{1,20})$/;

const ACTION_KEY = {
  prompt: "audit.action.prompt",
  confirm: "audit.action.confirm",
  request_approval: "audit.action.request_approval",
  cancel: "audit.action.cancel",
  expire: "audit.action.expire",
  approve: "audit.action.approve",
  sign: "audit.action.sign",
  reject: "audit.action.reject",
  withdraw: "audit.action.withdraw",
  initiator_removed: "audit.action.initiator_removed",
  submit: "audit.action.submit",
  accepted: "audit.action.accepted",
  refused: "audit.action.refused",
  lost: "audit.action.lost",
  accepted_late: "audit.action.accepted_late",
  settle_success: "audit.action.settle_success",
  settle_failed: "audit.action.settle_failed",
  settle_canceled: "audit.action.settle_canceled",
  resolve_with_id: "audit.action.resolve_with_id",
  resolve_failed: "audit.action.resolve_failed",
  staff_set: "audit.action.staff_set",
  staff_removed: "audit.action.staff_removed",
  export: "audit.action.export",
  rejection_reason: "audit.action.rejection_reason",
  limit_refused: "audit.action.limit_refused",
  batch_upload: "audit.action.batch_upload",
  batch_checked: "audit.action.batch_checked",
  batch_confirm: "audit.action.batch_confirm",
  batch_request_approval: "audit.action.batch_request_approval",
  batch_approve: "audit.action.batch_approve",
  batch_sign: "audit.action.batch_sign",
  schedule_sign: "audit.action.schedule_sign",
  batch_reject: "audit.action.batch_reject",
  batch_approval_expire: "audit.action.batch_approval_expire",
  batch_cancel: "audit.action.batch_cancel",
  batch_include_repeats: "audit.action.batch_include_repeats",
  batch_expire: "audit.action.batch_expire",
  batch_stop: "audit.action.batch_stop",
  batch_done: "audit.action.batch_done",
  batch_schedule: "audit.action.batch_schedule",
  batch_run_start: "audit.action.batch_run_start",
  events_paused: "audit.action.events_paused",
  events_resumed: "audit.action.events_resumed",
  events_replayed: "audit.action.events_replayed",
  events_disabled: "audit.action.events_disabled",
  availability_changed: "audit.action.availability_changed",
  recipient_saved: "audit.action.recipient_saved",
  recipient_forgotten: "audit.action.recipient_forgotten",
  recipient_renamed: "audit.action.recipient_renamed",
  schedule_prompt: "audit.action.schedule_prompt",
  schedule_confirm: "audit.action.schedule_confirm",
  schedule_request_approval: "audit.action.schedule_request_approval",
  schedule_approve: "audit.action.schedule_approve",
  schedule_reject: "audit.action.schedule_reject",
  schedule_cancel: "audit.action.schedule_cancel",
  schedule_expire: "audit.action.schedule_expire",
  schedule_pause: "audit.action.schedule_pause",
  schedule_resume: "audit.action.schedule_resume",
  schedule_delete: "audit.action.schedule_delete",
  schedule_finish: "audit.action.schedule_finish",
  schedule_run_sent: "audit.action.schedule_run_sent",
  schedule_run_held: "audit.action.schedule_run_held",
  schedule_run_skipped: "audit.action.schedule_run_skipped",
  schedule_run_missed: "audit.action.schedule_run_missed",
  schedule_run_retrying: "audit.action.schedule_run_retrying",
  pin_set: "audit.action.pin_set",
  pin_reset: "audit.action.pin_reset",
  pin_failed: "audit.action.pin_failed",
  pin_locked: "audit.action.pin_locked",
} as const satisfies Record<AuditAction, MessageKey>;

/** Facts shown with words of their own; any other as `name: value`. */
const DETAIL_KEY = {
  userId: "audit.detail.user",
  role: "audit.detail.role",
  paymentId: "audit.detail.payment_id",
  status: "audit.detail.status",
  from: "audit.detail.from",
  to: "audit.detail.to",
  rows: "audit.detail.rows",
  command: "audit.detail.command",
  duplicateOf: "audit.detail.duplicate_of",
  reason: "audit.detail.reason",
  day: "audit.detail.day",
  payableRows: "audit.detail.payable_rows",
  paid: "audit.detail.paid",
  failed: "audit.detail.failed",
  pending: "audit.detail.pending",
  unknown: "audit.detail.unknown",
  skipped: "audit.detail.skipped",
  left: "audit.detail.pin_left",
} as const satisfies Record<string, MessageKey>;

/** Facts that are amounts in XAF, written as amounts are everywhere. */
const AMOUNT_KEY = {
  capXaf: "audit.detail.cap",
  usedXaf: "audit.detail.used",
  totalXaf: "audit.detail.total",
  paidXaf: "audit.detail.paid_amount",
  feesXaf: "audit.detail.fees",
} as const satisfies Record<string, MessageKey>;

/** Facts whose values are words of ours (a limit's name, a payout's kind, a step). */
const WORD_KEY = {
  limit: { payer: "audit.detail.limit_payer", merchant: "audit.detail.limit_merchant" },
  kind: { disbursement: "audit.detail.kind_payout", collection: "audit.detail.kind_collection" },
  step: { prompt: "audit.detail.step_prompt", confirm: "audit.detail.step_confirm" },
} as const satisfies Record<string, Record<string, MessageKey>>;

function isKnown<T extends object>(table: T, key: string): key is Extract<keyof T, string> {
  return Object.hasOwn(table, key);
}

/** The action in the reader's words; an action this version does not know, as written. */
export function actionLabel(t: Translate, action: string): string {
  return isKnown(ACTION_KEY, action) ? t(ACTION_KEY[action]) : t("audit.action.other", { action });
}

/** What an export held (the `what` of its entry). */
const EXPORT_KEY = {
  payouts: "audit.detail.export_payouts",
  audit: "audit.detail.export_audit",
} as const satisfies Record<string, MessageKey>;

function detailText(t: Translate, name: string, value: string | number | boolean | null) {
  const shown = String(value).slice(0, 80);
  if (name === "what" && isKnown(EXPORT_KEY, shown)) return t(EXPORT_KEY[shown]);
  if (name === "role" && isRole(shown))
    return t("audit.detail.role", { value: t.plain(`role.${shown}`) });
  const status = name === "status" ? knownStatus(shown) : undefined;
  if (status !== undefined) {
    return t("audit.detail.status", { value: t.plain(`payment_status.${status}`) });
  }
  // A PIN's lock: until when, as every time is shown.
  if (name === "untilMs" && typeof value === "number") {
    return t("audit.detail.locked_until", { time: t.time(value) });
  }
  if (isKnown(AMOUNT_KEY, name) && typeof value === "number") {
    return t(AMOUNT_KEY[name], { value: money(t, value) });
  }
  if (isKnown(WORD_KEY, name)) {
    const words: Readonly<Record<string, MessageKey>> = WORD_KEY[name];
    const key = words[shown];
    if (key !== undefined) return t(key);
  }
  return isKnown(DETAIL_KEY, name)
    ? t(DETAIL_KEY[name], { value: typeof value === "number" ? value : shown })
    : t("audit.detail.other", { name, value: shown });
}

function actorText(t: Translate, entry: AuditEntry, names: ReadonlyMap<number, string>) {
  if (entry.actorRole === "system") return t("audit.by_system");
  const name = names.get(entry.actorId) ?? t.plain("history.user_id", { id: entry.actorId });
  return t("audit.actor", { name, role: t.plain(`role.${entry.actorRole}`) });
}

/** One entry: when, what and who; then what it was done to. */
export function auditLine(
  t: Translate,
  entry: AuditEntry,
  names: ReadonlyMap<number, string>,
): string {
  const head = t("audit.line", {
    time: t.time(entry.atMs),
    action: html(actionLabel(t, entry.action)),
    actor: html(actorText(t, entry, names)),
  });
  const facts: string[] = [];
  if (entry.payoutId) facts.push(t("audit.payout", { ref: entry.payoutId }));
  if (entry.batchId) facts.push(t("audit.batch", { ref: entry.batchId }));
  // Amounts, masked numbers and state names are the same words as everywhere else.
  if (entry.amount !== undefined) facts.push(escapeHtml(money(t, entry.amount)));
  if (entry.phone) facts.push(escapeHtml(entry.phone));
  if (entry.from && entry.to) {
    const from = t.plain(STATE_TITLE[entry.from]);
    facts.push(escapeHtml(`${from} → ${t.plain(STATE_TITLE[entry.to])}`));
  }
  for (const [name, value] of Object.entries(entry.details ?? {})) {
    facts.push(detailText(t, name, value));
  }
  return facts.length === 0 ? head : `${head}\n   ${facts.join(" · ")}`;
}

export interface AuditPageFacts {
  /** Newest first. */
  entries: readonly AuditEntry[];
  size: number;
  hasOlder: boolean;
  hasNewer: boolean;
}

/** A page of /audit with its Older/Newer buttons; fewer entries when they would not fit. */
export function auditView(
  t: Translate,
  page: AuditPageFacts,
  names: ReadonlyMap<number, string>,
): View {
  if (page.entries.length === 0) return { text: t("audit.empty") };
  const lines = page.entries.map((entry) => auditLine(t, entry, names));
  const title = t("audit.title");
  let shown = lines.length;
  const textOf = (count: number) => [title, ...lines.slice(0, count)].join("\n\n");
  while (shown > 1 && textOf(shown).length > PAGE_TEXT_LIMIT) shown -= 1;
  const hasOlder = page.hasOlder || shown < lines.length;
  const first = page.entries[0]?.id;
  const last = page.entries[shown - 1]?.id;
  const buttons = [];
  if (page.hasNewer && first) {
    buttons.push(
      Markup.button.callback(t.plain("button.newer"), AUDIT_CALLBACK.newer(page.size, first)),
    );
  }
  if (hasOlder && last) {
    buttons.push(
      Markup.button.callback(t.plain("button.older"), AUDIT_CALLBACK.older(page.size, last)),
    );
  }
  const text = clampHtml(textOf(shown));
  return buttons.length > 0
    ? { text, keyboard: Markup.inlineKeyboard([buttons]).reply_markup }
    : { text };
}
