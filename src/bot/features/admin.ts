/**
 * Admin commands: payouts whose outcome is unknown and their resolution, and staff
 * management. Every action is recorded in the audit log.
 */
import type { Composer } from "telegraf";
import type { MessageKey } from "../../i18n.js";
import { staffActor } from "../../model/audit.js";
import { isRole } from "../../model/roles.js";
import type { Payouts } from "../../payouts/payouts.js";
import { type Capability, may } from "../../payouts/policy.js";
import type { ResolveResult } from "../../payouts/types.js";
import type { Stores } from "../../store/types.js";
import type { BotContext } from "../context.js";
import { namesOf } from "../messenger/people.js";
import { FlatComposer } from "../telegram/flat-composer.js";
import { editView, replyHtml, replyView } from "../telegram/reply.js";
import { apiTroubleText, CALLBACK_PATTERN, payoutStateView } from "../views/common.js";
import { unknownView } from "../views/reports.js";
import { commandPayload } from "./shared/command-args.js";

/** Unknown payouts per page of /unknown: room for each one's hint in one message. */
const UNKNOWN_PAGE_SIZE = 10;

export interface AdminDeps {
  payouts: Payouts;
  stores: Stores;
  now: () => number;
}

/** The reply to a /resolve that changed nothing (each text uses `ref`, `id` or neither). */
const RESOLVE_REFUSAL = {
  not_found: "resolve.not_found",
  not_unknown: "resolve.not_unknown",
  payment_not_found: "resolve.payment_not_found",
  payment_taken: "resolve.payment_taken",
  mismatch: "resolve.mismatch",
} as const satisfies Record<
  Exclude<ResolveResult["outcome"], "resolved" | "api_error">,
  MessageKey
>;

export function adminFeature(deps: AdminDeps): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  /** Only admins resolve and manage staff; anyone else is told so. */
  /** The staff member asking, when their role allows `capability`; else null (told so). */
  const allowed = async (ctx: BotContext, capability: Capability) => {
    if (ctx.staff !== null && may(ctx.staff, capability)) return ctx.staff;
    await replyHtml(ctx, ctx.t("access.admin_only"));
    return null;
  };

  /** One page of /unknown, newest first (the set itself has no order). */
  const unknownPage = async (ctx: BotContext, page: number) => {
    const payouts = await deps.stores.payouts.listInState("unknown");
    payouts.sort((a, b) => b.createdAtMs - a.createdAtMs || a.id.localeCompare(b.id));
    const start = page * UNKNOWN_PAGE_SIZE;
    const items = payouts.slice(start, start + UNKNOWN_PAGE_SIZE);
    const names = await namesOf(
      deps.stores.profiles,
      items.map((payout) => payout.initiatorId),
    );
    const shown = { items, total: payouts.length, page, pageSize: UNKNOWN_PAGE_SIZE };
    return unknownView(ctx.t, shown, names);
  };

  composer.command("unknown", async (ctx) => {
    if (!(await allowed(ctx, "resolve"))) return;
    await replyView(ctx, await unknownPage(ctx, 0));
  });

  composer.action(CALLBACK_PATTERN.unknown, async (ctx) => {
    if (!may(ctx.staff, "resolve")) {
      await ctx.answerCbQuery(ctx.t.plain("access.admin_only"), { show_alert: true });
      return;
    }
    await ctx.answerCbQuery();
    await editView(ctx, await unknownPage(ctx, Number(ctx.match[1])));
  });

  composer.command("resolve", async (ctx) => {
    const staff = await allowed(ctx, "resolve");
    if (!staff) return;
    const [reference, answer, extra] = commandPayload(ctx.message.text).split(/\s+/);
    if (!reference || !answer || extra !== undefined || !/^[\w-]{1,100}$/.test(answer)) {
      await replyHtml(ctx, ctx.t("usage.resolve"));
      return;
    }
    const admin = staffActor(staff);
    const result =
      answer.toLowerCase() === "failed"
        ? await deps.payouts.resolution.asFailed(reference, admin)
        : await deps.payouts.resolution.withPaymentId(reference, admin, answer);
    if (result.outcome === "api_error") {
      await replyHtml(ctx, apiTroubleText(ctx.t, result.error));
      return;
    }
    if (result.outcome !== "resolved") {
      await replyHtml(ctx, ctx.t(RESOLVE_REFUSAL[result.outcome], { ref: reference, id: answer }));
      return;
    }
    ctx.log.info({ payoutId: reference, answer }, "unknown payout resolved");
    await replyView(ctx, payoutStateView(ctx.t, result.payout));
  });

  composer.command("staff", async (ctx) => {
    const asker = await allowed(ctx, "manage_staff");
    if (!asker) return;
    const [action, id, role] = commandPayload(ctx.message.text).split(/\s+/);
    if (!action) {
      const staff = await deps.stores.staff.list();
      const lines = [ctx.t("staff.title")];
      for (const member of staff) {
        const role = ctx.t(`role.${member.role}`);
        const origin = member.origin;
        lines.push(
          origin?.source === "env"
            ? ctx.t("staff.line_env", { id: member.userId, role })
            : origin?.source === "runtime"
              ? ctx.t("staff.line_runtime", { id: member.userId, role, by: origin.byUserId })
              : ctx.t("staff.line", { id: member.userId, role }),
        );
      }
      lines.push("", ctx.t("staff.origin_rule"));
      lines.push("", ctx.t("usage.staff"));
      await replyHtml(ctx, lines.join("\n"));
      return;
    }
    const userId = Number(id);
    if (!id || !/^\d{1,15}$/.test(id)) {
      await replyHtml(ctx, ctx.t("usage.staff"));
      return;
    }
    if (action === "add" && role && isRole(role)) {
      await deps.payouts.staff.set(userId, role, asker);
      await replyHtml(ctx, ctx.t("staff.added", { id: userId, role: ctx.t(`role.${role}`) }));
      return;
    }
    if (action === "remove") {
      if (userId === ctx.from.id) {
        await replyHtml(ctx, ctx.t("staff.not_yourself"));
        return;
      }
      const { outcome } = await deps.payouts.staff.remove(userId, asker);
      await replyHtml(
        ctx,
        ctx.t(outcome === "changed" ? "staff.removed" : "staff.not_staff", { id: userId }),
      );
      return;
    }
    await replyHtml(ctx, ctx.t("usage.staff"));
  });

  return composer;
}
