/**
 * Admin commands: payouts whose outcome is unknown and their resolution, and staff
 * management. Every action is recorded in the audit log.
 */
import { Composer } from "telegraf";
import { isRole } from "../../config.js";
import type { PayoutService } from "../../payouts/service.js";
import type { Stores } from "../../store/types.js";
import { commandPayload } from "../command-args.js";
import { type BotContext, can } from "../context.js";
import { replyView } from "../reply.js";
import { payoutLine } from "../report-views.js";
import { payoutStateView } from "../views.js";

export interface AdminDeps {
  service: PayoutService;
  stores: Stores;
  now: () => number;
}

export function adminFeature(deps: AdminDeps): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  const isAdmin = async (ctx: BotContext) => {
    if (can(ctx.staff, "admin")) return true;
    await ctx.reply(ctx.t("access.admin_only"), { parse_mode: "HTML" });
    return false;
  };

  composer.command("unknown", async (ctx) => {
    if (!(await isAdmin(ctx))) return;
    const payouts = await deps.stores.payouts.listInState("unknown");
    if (payouts.length === 0) {
      await ctx.reply(ctx.t("unknown.none"), { parse_mode: "HTML" });
      return;
    }
    const lines = [ctx.t("unknown.title", { count: payouts.length }), ""];
    for (const payout of payouts) {
      lines.push(payoutLine(ctx.t, payout, true));
      if (payout.candidatePaymentId) {
        lines.push(ctx.t("unknown.hint", { ref: payout.id, id: payout.candidatePaymentId }));
      }
    }
    lines.push("", ctx.t("unknown.how"));
    await ctx.reply(lines.join("\n"), { parse_mode: "HTML" });
  });

  composer.command("resolve", async (ctx) => {
    if (!(await isAdmin(ctx))) return;
    const [reference, answer, extra] = commandPayload(ctx.message.text).split(/\s+/);
    if (!reference || !answer || extra !== undefined || !/^[\w-]{1,100}$/.test(answer)) {
      await ctx.reply(ctx.t("usage.resolve"), { parse_mode: "HTML" });
      return;
    }
    const result =
      answer.toLowerCase() === "failed"
        ? await deps.service.resolveAsFailed(reference, ctx.from.id)
        : await deps.service.resolveWithPaymentId(reference, ctx.from.id, answer);
    switch (result.outcome) {
      case "resolved":
        ctx.log.info({ payoutId: reference, answer }, "unknown payout resolved");
        await replyView(ctx, payoutStateView(ctx.t, result.payout));
        return;
      case "not_found":
        await ctx.reply(ctx.t("resolve.not_found", { ref: reference }), { parse_mode: "HTML" });
        return;
      case "not_unknown":
        await ctx.reply(ctx.t("resolve.not_unknown", { ref: reference }), { parse_mode: "HTML" });
        return;
      case "payment_not_found":
        await ctx.reply(ctx.t("resolve.payment_not_found", { id: answer }), { parse_mode: "HTML" });
        return;
      case "payment_taken":
        await ctx.reply(ctx.t("resolve.payment_taken", { id: answer }), { parse_mode: "HTML" });
        return;
      case "mismatch":
        await ctx.reply(ctx.t("resolve.mismatch", { id: answer }), { parse_mode: "HTML" });
        return;
      case "api_error":
        await ctx.reply(ctx.t("error.api_unreachable"), { parse_mode: "HTML" });
        return;
    }
  });

  composer.command("staff", async (ctx) => {
    if (!(await isAdmin(ctx))) return;
    const [action, id, role] = commandPayload(ctx.message.text).split(/\s+/);
    if (!action) {
      const staff = await deps.stores.staff.list();
      const lines = [ctx.t("staff.title")];
      for (const member of staff)
        lines.push(ctx.t("staff.line", { id: member.userId, role: ctx.t(`role.${member.role}`) }));
      lines.push("", ctx.t("usage.staff"));
      await ctx.reply(lines.join("\n"), { parse_mode: "HTML" });
      return;
    }
    const userId = Number(id);
    if (!id || !/^\d{1,15}$/.test(id)) {
      await ctx.reply(ctx.t("usage.staff"), { parse_mode: "HTML" });
      return;
    }
    if (action === "add" && role && isRole(role)) {
      await deps.stores.staff.set(userId, role);
      await audit(deps, ctx.from.id, "staff_set", { userId, role });
      await ctx.reply(ctx.t("staff.added", { id: userId, role: ctx.t(`role.${role}`) }), {
        parse_mode: "HTML",
      });
      return;
    }
    if (action === "remove") {
      if (userId === ctx.from.id) {
        await ctx.reply(ctx.t("staff.not_yourself"), { parse_mode: "HTML" });
        return;
      }
      const removed = await deps.stores.staff.remove(userId);
      if (removed) await audit(deps, ctx.from.id, "staff_removed", { userId });
      await ctx.reply(ctx.t(removed ? "staff.removed" : "staff.not_staff", { id: userId }), {
        parse_mode: "HTML",
      });
      return;
    }
    await ctx.reply(ctx.t("usage.staff"), { parse_mode: "HTML" });
  });

  return composer;
}

async function audit(
  deps: AdminDeps,
  actorId: number,
  action: string,
  details: Record<string, string | number>,
) {
  await deps.stores.audit.record({ atMs: deps.now(), actorId, action, details });
}
