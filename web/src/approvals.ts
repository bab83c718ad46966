/**
 * Approvals: what waits for this person, with Approve and Reject. The server decides with
 * the chat buttons' own steps; the page only makes sure one press sends one request (both
 * buttons are disabled from the first press until the answer).
 */
import { ApiError, getJson, postJson } from "./api.js";
import { h } from "./dom.js";
import { type Key, money, phone, t, when } from "./i18n.js";
import { haptic } from "./telegram.js";
import type { Names, PayoutView } from "./types.js";

const OUTCOME: Record<string, Key> = {
  pending: "approvals.pending",
  unknown: "approvals.unknown",
  refused: "approvals.refused",
  not_sent: "approvals.not_sent",
  claimed: "approvals.pending",
  rejected: "approvals.rejected",
  signed: "approvals.signed",
};

const REFUSAL: Record<string, Key> = {
  already: "approvals.already",
  expired: "approvals.expired",
  duplicate: "approvals.duplicate",
  over_limit: "approvals.over_limit",
  forbidden: "approvals.forbidden",
  already_signed: "approvals.already_signed",
  not_found: "approvals.already",
};

/**
 * A payout that needs several signatures (APPROVAL_RULES): the rule, who signed and when,
 * who may still sign. Nothing for a rule of one.
 */
function signatureLines(payout: PayoutView, names: Names): HTMLElement[] {
  const needed = payout.signaturesNeeded ?? 1;
  if (needed <= 1) return [];
  const nameOf = (id: number) => names[String(id)] ?? String(id);
  const given = payout.signatures ?? [];
  const lines = [
    h(
      "p",
      { "data-testid": "signatures" },
      t("approvals.signatures", { needed, given: given.length }),
    ),
  ];
  if (given.length > 0) {
    const signers = given.map((s) => `${nameOf(s.userId)} (${when(s.atMs)})`).join(", ");
    lines.push(h("p", { class: "muted" }, t("approvals.signed_by", { names: signers })));
  }
  const awaited = payout.awaited ?? [];
  if (awaited.length > 0) {
    const waitingFor = awaited.map(nameOf).join(", ");
    lines.push(h("p", { class: "muted" }, t("approvals.awaited", { names: waitingFor })));
  }
  return lines;
}

function card(
  payout: PayoutView,
  names: Names,
  showError: (error: unknown, where: HTMLElement) => void,
): HTMLElement {
  const name = payout.recipientName || phone(payout.phone);
  const amount = money(payout.amount);
  const status = h("p", { class: "notice", role: "status" });
  const approve = h(
    "button",
    {
      type: "button",
      "aria-label": t("approvals.approve_label", { amount, name }),
      "data-action": "approve",
    },
    t("approvals.approve"),
  );
  const reject = h(
    "button",
    {
      type: "button",
      class: "danger",
      "aria-label": t("approvals.reject_label", { amount, name }),
      "data-action": "reject",
    },
    t("approvals.reject"),
  );
  let duplicateSeenAtMs: number | undefined;
  const decide = async (action: "approve" | "reject") => {
    approve.disabled = true;
    reject.disabled = true;
    status.textContent = t("approvals.working");
    try {
      const body =
        action === "approve" && duplicateSeenAtMs !== undefined ? { duplicateSeenAtMs } : {};
      const answer = await postJson<{ outcome: string; given?: number; needed?: number }>(
        `approvals/${encodeURIComponent(payout.id)}/${action}`,
        body,
      );
      const counts = { given: answer.given ?? 0, needed: answer.needed ?? 0 };
      status.textContent = t(OUTCOME[answer.outcome] ?? "approvals.pending", counts);
      item.classList.add("decided");
      haptic(action === "approve" ? "success" : "warning");
    } catch (error) {
      if (error instanceof ApiError && error.status === 409 && error.code === "duplicate") {
        duplicateSeenAtMs = Number(error.body.duplicateSeenAtMs);
        status.textContent = t("approvals.duplicate");
        haptic("warning");
        approve.disabled = false;
        reject.disabled = false;
        return;
      }
      if (error instanceof ApiError && REFUSAL[error.code] !== undefined && error.status !== 401) {
        status.textContent = t(REFUSAL[error.code] ?? "approvals.already");
        item.classList.add("decided");
        haptic("error");
        return;
      }
      showError(error, status);
      haptic("error");
      approve.disabled = false;
      reject.disabled = false;
    }
  };
  approve.addEventListener("click", () => void decide("approve"));
  reject.addEventListener("click", () => void decide("reject"));
  const item = h(
    "li",
    { class: "card approval", "data-testid": "approval", "data-payout-id": payout.id },
    h(
      "div",
      { class: "approval-head" },
      h(
        "span",
        { class: "row-main" },
        name,
        h("small", {}, `${phone(payout.phone)} · ${t(`operator.${payout.operator}`)}`),
      ),
      h("span", { class: "row-amount big" }, amount),
    ),
    h(
      "p",
      { class: "muted" },
      `${t("approvals.asked_by", { name: names[String(payout.initiatorId)] ?? String(payout.initiatorId) })} · ${when(payout.createdAtMs)}`,
    ),
    payout.note && h("p", {}, payout.note),
    ...signatureLines(payout, names),
    h("div", { class: "actions" }, approve, reject),
    status,
  );
  return item;
}

export async function renderApprovals(
  root: HTMLElement,
  showError: (error: unknown, where: HTMLElement) => void,
): Promise<void> {
  const answer = await getJson<{ items: PayoutView[]; names: Names }>("approvals");
  root.replaceChildren(
    answer.items.length === 0
      ? h("p", { class: "muted card" }, t("approvals.empty"))
      : h(
          "ul",
          { class: "plain" },
          ...answer.items.map((payout) => card(payout, answer.names, showError)),
        ),
  );
}
