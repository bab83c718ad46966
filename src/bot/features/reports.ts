/**
 * /audit (admins): the audit trail, newest first, paged. /export (admins and viewers): the
 * payouts and collections created in a period as a CSV document; /export audit (admins):
 * the audit trail of a period. Exports are written page by page to a temporary file,
 * uploaded, removed, and recorded in the audit trail themselves.
 */
import { type Composer, Input } from "telegraf";
import { type AuditColumn, auditSource } from "../../csv/audit.js";
import { type ExportResult, MAX_EXPORT_ROWS, writeExport } from "../../csv/export.js";
import { PAYOUT_HEADER_KEYS, payoutSource } from "../../csv/payouts.js";
import type { MessageKey } from "../../i18n.js";
import type { Payouts } from "../../payouts/payouts.js";
import { may } from "../../payouts/policy.js";
import type { Stores } from "../../store/types.js";
import { dayOf, daysWindow } from "../../time.js";
import type { BotContext } from "../context.js";
import { namesOf } from "../messenger/people.js";
import { clampHtml } from "../telegram/clamp.js";
import { cosmetic } from "../telegram/failures.js";
import { FlatComposer } from "../telegram/flat-composer.js";
import { editView, replyHtml, replyView } from "../telegram/reply.js";
import {
  AUDIT_CALLBACK_PATTERN,
  AUDIT_MAX_PAGE_SIZE,
  AUDIT_PAGE_SIZE,
  type AuditPageFacts,
  auditView,
} from "../views/audit.js";
import { commandPayload } from "./shared/command-args.js";
import { type ExportArgs, parseExportArgs, periodText } from "./shared/export-args.js";

/** Telegram's limit on a document's caption. */
const CAPTION_LIMIT = 1024;

const AUDIT_HEADERS = {
  time: "export.column.time",
  actorId: "export.column.actor_id",
  actor: "export.column.actor",
  role: "export.column.role",
  action: "export.column.action",
  payout: "export.column.payout",
  batch: "export.column.batch",
  from: "export.column.from",
  to: "export.column.to",
  amount: "export.column.amount",
  number: "export.column.masked_number",
  details: "export.column.details",
} as const satisfies Record<AuditColumn, MessageKey>;

export interface ReportsDeps {
  payouts: Pick<Payouts, "exports">;
  stores: Stores;
  now: () => number;
}

export function reportsFeature(deps: ReportsDeps): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  const { stores } = deps;

  /**
   * A page of /audit, newest first: the newest entries, those older than an entry, or
   * those just newer than one (the newest page once fewer than a page are left).
   */
  const auditPage = async (size: number, from?: { older: boolean; id: string }) => {
    let facts: AuditPageFacts | undefined;
    if (from?.older === false) {
      const newer = await stores.audit.range({
        fromMs: Number(from.id.split("-")[0]),
        toMs: Number.MAX_SAFE_INTEGER,
        after: from.id,
        limit: size + 1,
      });
      if (newer.entries.length > size) {
        const entries = newer.entries.slice(0, size).reverse();
        facts = { entries, size, hasOlder: true, hasNewer: true };
      }
    }
    if (!facts) {
      const before = from?.older ? from.id : undefined;
      const page = await stores.audit.page({ limit: size + 1, before });
      const entries = page.entries.slice(0, size);
      facts = { entries, size, hasOlder: page.entries.length > size, hasNewer: !!before };
    }
    const actors = facts.entries.map((entry) => entry.actorId);
    return { facts, names: await namesOf(stores.profiles, actors) };
  };

  composer.command("audit", async (ctx) => {
    if (!may(ctx.staff, "audit")) {
      await replyHtml(ctx, ctx.t("access.admin_only"));
      return;
    }
    const payload = commandPayload(ctx.message.text);
    const size = payload === "" ? AUDIT_PAGE_SIZE : Number(payload);
    if (!Number.isInteger(size) || size < 1 || size > AUDIT_MAX_PAGE_SIZE) {
      await replyHtml(ctx, ctx.t("audit.usage"));
      return;
    }
    const { facts, names } = await auditPage(size);
    await replyView(ctx, auditView(ctx.t, facts, names));
  });

  composer.action(AUDIT_CALLBACK_PATTERN, async (ctx) => {
    if (!may(ctx.staff, "audit")) {
      await ctx.answerCbQuery(ctx.t.plain("access.admin_only"), { show_alert: true });
      return;
    }
    await ctx.answerCbQuery();
    const size = Math.min(AUDIT_MAX_PAGE_SIZE, Math.max(1, Number(ctx.match[2])));
    const { facts, names } = await auditPage(size, {
      older: ctx.match[1] === "o",
      id: ctx.match[3] ?? "",
    });
    await editView(ctx, auditView(ctx.t, facts, names));
  });

  composer.command("export", async (ctx) => {
    if (!may(ctx.staff, "export") && !may(ctx.staff, "audit")) {
      await replyHtml(ctx, ctx.t("export.not_allowed"));
      return;
    }
    const zone = ctx.t.timeZone;
    const args = parseExportArgs(commandPayload(ctx.message.text), dayOf(deps.now(), zone));
    if (!args.ok) {
      await replyHtml(ctx, usageText(ctx, args));
      return;
    }
    if (!may(ctx.staff, args.what === "audit" ? "audit" : "export")) {
      await replyHtml(
        ctx,
        ctx.t(args.what === "audit" ? "access.admin_only" : "export.not_allowed"),
      );
      return;
    }
    await exportPeriod(ctx, deps, args);
  });

  return composer;
}

function usageText(ctx: BotContext, args: Extract<ExportArgs, { ok: false }>): string {
  const usage = ctx.t("export.usage", { zone: ctx.t.zoneName });
  if (args.problem === "date") return `${ctx.t("export.bad_date", { text: args.text })}\n${usage}`;
  if (args.problem === "order") return `${ctx.t("export.bad_order")}\n${usage}`;
  return usage;
}

/** Writes the export, records it in the audit trail, and sends it (or says it is empty). */
async function exportPeriod(
  ctx: BotContext,
  deps: ReportsDeps,
  args: Extract<ExportArgs, { ok: true }>,
): Promise<void> {
  const { stores } = deps;
  const zone = ctx.t.timeZone;
  const window = daysWindow(args.from, args.to, zone);
  const audit = args.what === "audit";
  const fileName = `${audit ? "audit" : "payouts"}-${periodText(args.from, args.to, "-to-")}.csv`;
  await cosmetic("sendChatAction", () => ctx.sendChatAction("upload_document"), ctx.log);
  const options = { fileName, locale: ctx.locale };
  const result: ExportResult = audit
    ? await writeExport(
        auditSource({
          stores,
          window,
          timeZone: zone,
          header: (c) => ctx.t.plain(AUDIT_HEADERS[c]),
        }),
        options,
      )
    : await writeExport(
        payoutSource({
          stores,
          window,
          timeZone: zone,
          header: (column) => ctx.t.plain(PAYOUT_HEADER_KEYS[column]),
        }),
        options,
      );
  const rows = result.kind === "file" ? result.rows : 0;
  if (ctx.staff) {
    await deps.payouts.exports.made(ctx.staff, {
      what: args.what,
      from: args.from,
      to: args.to,
      rows,
    });
  }
  ctx.log.info(
    { export: args.what, from: args.from, to: args.to, rows, pages: result.pages },
    "export made",
  );
  const period = periodText(args.from, args.to);
  if (result.kind === "empty") {
    await replyHtml(ctx, ctx.t(audit ? "export.empty_audit" : "export.empty", { period }));
    return;
  }
  try {
    const caption = [
      ctx.t(audit ? "export.caption_audit" : "export.caption", {
        period,
        rows,
        zone: ctx.t.zoneName,
      }),
      ...(result.truncated ? [ctx.t("export.truncated", { max: MAX_EXPORT_ROWS })] : []),
    ].join("\n");
    await ctx.replyWithDocument(Input.fromLocalFile(result.file.path, fileName), {
      caption: clampHtml(caption, CAPTION_LIMIT),
      parse_mode: "HTML",
    });
  } finally {
    await result.file.discard();
  }
}
