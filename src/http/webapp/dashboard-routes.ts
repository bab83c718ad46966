/**
 * The Mini App's read and decide routes: `me`, Overview, History (with its CSV), a
 * payout's detail, Batches and Approvals. Each reads its input with zod and calls a domain
 * step through `DashboardSteps` (wired in app-webapp.ts); Approve and Reject go through the
 * very steps the chat's buttons use (payouts/approval.ts, then payouts/submission.ts).
 */
import { z } from "zod";
import { BATCH_STATE_KEY, ROW_REASON_KEY } from "../../csv/batch-keys.js";
import { allCatalogs, type MessageKey, translator } from "../../i18n.js";
import type { AuditEntry } from "../../model/audit.js";
import type { Batch, RowStanding } from "../../model/batch.js";
import type { Locale } from "../../model/locale.js";
import type { Payout } from "../../model/payout.js";
import type { BatchDetail, BatchRowView, PayoutDetail } from "../../payouts/dashboard/details.js";
import {
  type HistoryPage,
  type HistoryQuery,
  HistoryQuerySchema,
  statusFilterOf,
} from "../../payouts/dashboard/history.js";
import type { Overview } from "../../payouts/dashboard/overview.js";
import type { Asker } from "../../payouts/policy.js";
import type { ApproveResult, RejectResult, SubmitResult } from "../../payouts/types.js";
import { askerOf, type WebAppUser } from "./auth.js";
import { failure, type WebAppReply, type WebAppRoute } from "./routes.js";

type Member = NonNullable<Asker>;

/** What the routes call; each is a domain step or a read through the payouts side. */
export interface DashboardSteps {
  overview(asker: Member): Promise<Overview>;
  history(asker: Member, query: HistoryQuery): Promise<HistoryPage>;
  /** The filtered view as /export writes it (audited); null when it is empty. */
  historyCsv(user: WebAppUser, query: HistoryQuery): Promise<{ name: string; text: string } | null>;
  /**
   * The same file (same permission, same audit), sent by the bot as a document to the
   * person's own chat: inside Telegram, where a web view may ignore a browser download.
   */
  sendHistoryCsv(
    user: WebAppUser,
    query: HistoryQuery,
  ): Promise<{ outcome: "sent"; name: string } | { outcome: "no_chat" } | null>;
  /**
   * A short-lived signed link to the same file (file-links.ts), for Telegram's
   * `downloadFile`: its path, name and end; null when the view is empty. The file is made,
   * checked and audited when the link is used (`history-csv`, served by app-webapp.ts).
   */
  historyCsvLink(
    user: WebAppUser,
    query: HistoryQuery,
  ): Promise<{ path: string; name: string; expiresAtMs: number } | null>;
  payout(asker: Member, id: string): Promise<PayoutDetail>;
  batches(asker: Member): Promise<Batch[]>;
  batch(asker: Member, id: string, only?: ReadonlySet<RowStanding>): Promise<BatchDetail>;
  waiting(asker: Member): Promise<Payout[]>;
  /** Approve, then (when claimed) the one request, awaited. */
  approve(
    asker: Member,
    id: string,
    duplicateSeenAtMs?: number,
  ): Promise<{ decision: ApproveResult; submitted?: SubmitResult }>;
  reject(asker: Member, id: string): Promise<RejectResult>;
  /** Who may decide on each of `payouts` now, in order (Approval.approversOfEach). */
  deciders(payouts: readonly Payout[]): Promise<number[][]>;
  /** Telegram names of these users (those without one are left out). */
  names(userIds: readonly number[]): Promise<Map<number, string>>;
}

/** What the page is shown of a payout (no chat ids, claims or tracking bookkeeping). */
export function payoutView(payout: Payout) {
  return {
    id: payout.id,
    kind: payout.kind,
    state: payout.state,
    status: statusFilterOf(payout.state),
    phone: payout.phone,
    operator: payout.operator,
    recipientName: payout.recipientName,
    amount: payout.amount,
    fee: payout.fee,
    note: payout.note,
    paymentId: payout.paymentId,
    batchId: payout.batchId,
    initiatorId: payout.initiatorId,
    approvedBy: payout.approvedBy,
    rejectedBy: payout.rejectedBy,
    rejectionReason: payout.rejectionReason,
    errorMessage: payout.errorMessage,
    createdAtMs: payout.createdAtMs,
    settledAtMs: payout.settledAtMs,
    approvalExpiresAtMs: payout.approvalExpiresAtMs,
    /** APPROVAL_RULES: how many must sign (1 without a rule) and who signed, when. */
    signaturesNeeded: payout.approvalRule?.signatures ?? 1,
    signatures: payout.signatures ?? [],
  };
}

/** An audit entry as the page shows it, its action in the reader's words (as /audit says it). */
function auditView(entry: AuditEntry, locale: Locale) {
  const { atMs, actorId, actorRole, action, from, to } = entry;
  const key = `audit.action.${action}`;
  const label = key in allCatalogs()[locale] ? translator(locale).plain(key as MessageKey) : action;
  return { atMs, actorId, actorRole, action, label, from, to };
}

async function namesOf(steps: DashboardSteps, ids: Iterable<number | undefined>) {
  const wanted = [...new Set([...ids].filter((id): id is number => id !== undefined && id > 0))];
  return Object.fromEntries(await steps.names(wanted));
}

/**
 * Why a batch row was skipped, in the reader's words: the /batch texts; one that needs the
 * row's facts (which row it repeats, the registered name) shows what the checks wrote.
 */
function problemLabel(row: BatchRowView, locale: Locale): string | undefined {
  if (row.problem === undefined) return undefined;
  const key = ROW_REASON_KEY[row.problem];
  if (!allCatalogs()[locale][key]?.includes("{")) return translator(locale).plain(key);
  return row.problemDetail ?? row.problem;
}

/** The History's filters, as query parameters (a page's `page` besides). */
const HISTORY_FILTERS = ["q", "status", "kind", "operator", "amount", "from", "to"] as const;

/** The History's own parameters of `params` (a link's query keeps only these). */
export function historyParamsOf(query: HistoryQuery): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of HISTORY_FILTERS) {
    const value = query[key];
    if (value !== undefined && value !== "") params.set(key, String(value));
  }
  return params;
}

export function queryOf(params: URLSearchParams): HistoryQuery | null {
  const raw: Record<string, string> = {};
  for (const key of [...HISTORY_FILTERS, "page"]) {
    const value = params.get(key);
    if (value !== null && value !== "") raw[key] = value;
  }
  const parsed = HistoryQuerySchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

const ONLY = z.enum(["skipped", "failed", "unknown", "pending", "paid"]);
const ApproveBody = z.object({ duplicateSeenAtMs: z.number().int().positive().optional() });

function decisionReply(decision: ApproveResult | RejectResult): WebAppReply | null {
  switch (decision.outcome) {
    case "not_found":
      return failure(404, "not_found");
    case "forbidden":
      return { status: 403, json: { error: "forbidden", reason: decision.why } };
    case "expired":
    case "already":
      return {
        status: 409,
        json: { error: decision.outcome, payout: payoutView(decision.payout) },
      };
    case "over_limit":
      return { status: 409, json: { error: "over_limit", limit: decision.over.limit } };
    case "already_signed":
      return {
        status: 409,
        json: { error: "already_signed", payout: payoutView(decision.payout) },
      };
    case "signed": {
      // APPROVAL_RULES: a signature short of the rule; the payout waits for the rest.
      const { given, needed } = decision;
      const json = { outcome: "signed", given, needed, payout: payoutView(decision.payout) };
      return { status: 200, json };
    }
    case "step_up_required":
      // At or over STEP_UP_THRESHOLD_XAF: approved only with the PIN (step-up/approve/:id).
      return { status: 403, json: { error: "step_up_required" } };
    case "duplicate":
      return {
        status: 409,
        json: {
          error: "duplicate",
          duplicate: payoutView(decision.duplicate),
          duplicateSeenAtMs: decision.duplicate.createdAtMs,
        },
      };
    default:
      return null;
  }
}

export function dashboardRoutes(steps: DashboardSteps): WebAppRoute[] {
  const get = (
    path: string,
    capability: WebAppRoute["capability"],
    handle: WebAppRoute["handle"],
  ): WebAppRoute => ({ method: "GET", path, capability, handle });
  return [
    get("me", "read", async ({ user }) => ({ status: 200, json: user })),
    get("overview", "read", async ({ user }) => {
      const overview = await steps.overview(askerOf(user));
      return { status: 200, json: overview };
    }),
    get("history", "read", async ({ user, query }) => {
      const parsed = queryOf(query);
      if (parsed === null) return failure(400, "bad_query");
      const page = await steps.history(askerOf(user), parsed);
      const names = await namesOf(
        steps,
        page.items.map((payout) => payout.initiatorId),
      );
      return { status: 200, json: { ...page, items: page.items.map(payoutView), names } };
    }),
    get("history/csv", "export", async ({ user, query }) => {
      const parsed = queryOf(query);
      if (parsed === null) return failure(400, "bad_query");
      const file = await steps.historyCsv(user, parsed);
      if (file === null) return failure(404, "empty");
      return {
        status: 200,
        file: { name: file.name, type: "text/csv; charset=utf-8", text: file.text },
      };
    }),
    {
      method: "POST",
      path: "history/csv/send",
      capability: "export",
      async handle({ user, query }) {
        const parsed = queryOf(query);
        if (parsed === null) return failure(400, "bad_query");
        const sent = await steps.sendHistoryCsv(user, parsed);
        if (sent === null) return failure(404, "empty");
        // Telegram would not deliver to this person's chat (never started, or the bot blocked).
        if (sent.outcome === "no_chat") return failure(409, "no_chat");
        return { status: 200, json: sent };
      },
    },
    {
      method: "POST",
      path: "history/csv/link",
      capability: "export",
      async handle({ user, query }) {
        const parsed = queryOf(query);
        if (parsed === null) return failure(400, "bad_query");
        const link = await steps.historyCsvLink(user, parsed);
        if (link === null) return failure(404, "empty");
        return { status: 200, json: link };
      },
    },
    get("payouts/:id", "read", async ({ user, params }) => {
      const detail = await steps.payout(askerOf(user), params.id ?? "");
      if (detail.outcome === "not_found") return failure(404, "not_found");
      const { payout, trail } = detail;
      const names = await namesOf(steps, [
        payout.initiatorId,
        payout.approvedBy,
        payout.rejectedBy,
        ...trail.map((entry) => entry.actorId),
      ]);
      return {
        status: 200,
        json: {
          payout: payoutView(payout),
          trail: trail.map((entry) => auditView(entry, user.language)),
          trailComplete: detail.trailComplete,
          names,
        },
      };
    }),
    get("batches", "read", async ({ user }) => {
      const batches = await steps.batches(askerOf(user));
      return {
        status: 200,
        json: {
          batches: batches.map((batch) => ({
            id: batch.id,
            state: batch.state,
            stateLabel: translator(user.language).plain(BATCH_STATE_KEY[batch.state]),
            fileName: batch.fileName,
            rowCount: batch.rowCount,
            createdAtMs: batch.createdAtMs,
            initiatorId: batch.initiatorId,
          })),
          names: await namesOf(
            steps,
            batches.map((batch) => batch.initiatorId),
          ),
        },
      };
    }),
    get("batches/:id", "read", async ({ user, params, query }) => {
      const only = query.get("only");
      const parsed = only === null || only === "" ? undefined : ONLY.safeParse(only);
      if (parsed !== undefined && !parsed.success) return failure(400, "bad_query");
      const detail = await steps.batch(
        askerOf(user),
        params.id ?? "",
        parsed === undefined ? undefined : new Set([parsed.data]),
      );
      if (detail.outcome === "not_found") return failure(404, "not_found");
      const { batch, rows, truncated } = detail;
      return {
        status: 200,
        json: {
          batch: {
            id: batch.id,
            state: batch.state,
            fileName: batch.fileName,
            rowCount: batch.rowCount,
            createdAtMs: batch.createdAtMs,
          },
          rows: rows.map((row) => ({
            ...row,
            problemLabel: problemLabel(row, user.language),
          })),
          truncated,
        },
      };
    }),
    get("approvals", "approve", async ({ user }) => {
      const waiting = await steps.waiting(askerOf(user));
      // Each with who may still sign it (its deciders but those who signed).
      const deciders = await steps.deciders(waiting);
      const items = waiting.map((payout, index) => {
        const signed = new Set((payout.signatures ?? []).map((s) => s.userId));
        const awaited = (deciders[index] ?? []).filter((id) => !signed.has(id));
        return { ...payoutView(payout), awaited };
      });
      const people = items.flatMap((item) => [
        item.initiatorId,
        ...item.signatures.map((s) => s.userId),
        ...item.awaited,
      ]);
      return { status: 200, json: { items, names: await namesOf(steps, people) } };
    }),
    {
      method: "POST",
      path: "approvals/:id/approve",
      capability: "approve",
      async handle({ user, params, body }) {
        const parsed = ApproveBody.safeParse(body);
        if (!parsed.success) return failure(400, "bad_body");
        const { decision, submitted } = await steps.approve(
          askerOf(user),
          params.id ?? "",
          parsed.data.duplicateSeenAtMs,
        );
        const refused = decisionReply(decision);
        if (refused !== null) return refused;
        const payout = submitted?.payout ?? ("payout" in decision ? decision.payout : undefined);
        return {
          status: 200,
          json: { outcome: submitted?.outcome ?? "claimed", payout: payout && payoutView(payout) },
        };
      },
    },
    {
      method: "POST",
      path: "approvals/:id/reject",
      capability: "approve",
      async handle({ user, params }) {
        const decision = await steps.reject(askerOf(user), params.id ?? "");
        const refused = decisionReply(decision);
        if (refused !== null) return refused;
        if (decision.outcome !== "rejected") return failure(500, "unexpected");
        return { status: 200, json: { outcome: "rejected", payout: payoutView(decision.payout) } };
      },
    },
  ];
}
