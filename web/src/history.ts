/** History: a search bar with chips, pages by day, a payout's detail with its trail, CSV export. */
import { ApiError, getFile, getJson, postJson } from "./api.js";
import { clear, h } from "./dom.js";
import { emptyFilters, queryString, searchBar } from "./history-filters.js";
import { clock, dayTitle, money, phone, t, when } from "./i18n.js";
import { pager } from "./pager.js";
import { canDownload, downloadFile, haptic, setBack, webApp } from "./telegram.js";
import type { DetailAnswer, HistoryAnswer, Names, PayoutView, Status } from "./types.js";

/** Kept while the page is open: back from a payout's detail finds the same search. */
const filters = emptyFilters();

export function statusBadge(status: Status): HTMLElement {
  return h("span", { class: `badge status-${status}` }, t(`status.${status}`));
}

function payoutRow(payout: PayoutView, names: Names, onOpen: (id: string) => void): HTMLElement {
  const button = h(
    "button",
    {
      type: "button",
      class: "row-button",
      "data-testid": "history-row",
      "data-payout-id": payout.id,
    },
    h(
      "span",
      { class: "row-main" },
      payout.recipientName || phone(payout.phone),
      h("small", {}, `${phone(payout.phone)} · ${clock(payout.createdAtMs)}`),
      h(
        "small",
        {},
        `${t(`kind.${payout.kind}`)} · ${names[String(payout.initiatorId)] ?? payout.initiatorId}`,
      ),
      payout.note ? h("small", { class: "row-note" }, payout.note) : null,
    ),
    h(
      "span",
      { class: "row-side" },
      h("span", { class: "row-amount" }, money(payout.amount)),
      statusBadge(payout.status),
    ),
  );
  button.addEventListener("click", () => onOpen(payout.id));
  return h("li", {}, button);
}

/** The payouts (newest first) in runs of the same day, each with the day's title. */
function byDay(items: PayoutView[]): Array<[string, PayoutView[]]> {
  const days: Array<[string, PayoutView[]]> = [];
  for (const payout of items) {
    const title = dayTitle(payout.createdAtMs);
    const last = days.at(-1);
    if (last && last[0] === title) last[1].push(payout);
    else days.push([title, [payout]]);
  }
  return days;
}

export async function renderHistory(
  root: HTMLElement,
  onOpen: (id: string) => void,
  showError: (error: unknown, where: HTMLElement) => void,
  canExport: boolean,
): Promise<void> {
  const results = h("div", {
    class: "results",
    "aria-live": "polite",
    "aria-label": t("history.results"),
  });
  const notice = h("p", { class: "notice", role: "status" });

  const load = async () => {
    clear(results, h("p", { class: "muted" }, t("app.loading")));
    try {
      const answer = await getJson<HistoryAnswer>(`history?${queryString(filters, true)}`);
      const pages = Math.max(1, Math.ceil(answer.total / answer.pageSize));
      const label = t("history.page", { page: answer.page + 1, pages });
      const bar = pager(answer, label, (delta) => {
        filters.page = Math.max(0, filters.page + delta);
        void load();
      });
      clear(
        results,
        h(
          "p",
          { class: "muted", "data-testid": "history-count" },
          t("history.count", { count: answer.total }),
        ),
        answer.partial && h("p", { class: "notice" }, t("history.partial")),
        answer.items.length === 0
          ? h("p", { class: "muted card" }, t("history.empty"))
          : h(
              "div",
              {},
              // The rows grouped by day (the device's), each day under its own title.
              ...byDay(answer.items).map(([title, items]) =>
                h(
                  "section",
                  { class: "day", "data-testid": "history-day" },
                  h("h3", { class: "day-title" }, title),
                  h(
                    "ul",
                    { class: "list card" },
                    ...items.map((payout) => payoutRow(payout, answer.names, onOpen)),
                  ),
                ),
              ),
            ),
        bar,
      );
    } catch (error) {
      showError(error, results);
    }
  };

  const exportButton =
    canExport &&
    h(
      "button",
      { type: "button", class: "secondary export", "data-action": "export" },
      t("history.export"),
    );
  const form = searchBar(filters, () => void load(), [
    exportButton && h("div", { class: "actions" }, exportButton),
    notice,
  ]);
  (exportButton || null)?.addEventListener("click", async () => {
    try {
      if (canDownload()) {
        // Telegram downloads it itself, from a link of a few minutes signed for this person.
        const link = await postJson<{ path: string; name: string }>(
          `history/csv/link?${queryString(filters, false)}`,
          {},
        );
        const url = new URL(link.path, window.location.href).toString();
        const accepted = await downloadFile(url, link.name);
        notice.textContent = t(accepted ? "history.downloading" : "history.download_declined", {
          name: link.name,
        });
        if (accepted) haptic("success");
        return;
      }
      if (webApp()) {
        // Inside Telegram a web view may ignore a download: the bot sends the file to the chat.
        const sent = await postJson<{ name: string }>(
          `history/csv/send?${queryString(filters, false)}`,
          {},
        );
        notice.textContent = t("history.sent_to_chat", { name: sent.name });
        haptic("success");
        return;
      }
      const { blob, name } = await getFile(`history/csv?${queryString(filters, false)}`);
      const url = URL.createObjectURL(blob);
      const link = h("a", { href: url, download: name });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      notice.textContent = t("history.exported", { name });
    } catch (error) {
      if (error instanceof ApiError && error.status === 404)
        notice.textContent = t("history.export_empty");
      else if (error instanceof ApiError && error.code === "no_chat")
        notice.textContent = t("history.no_chat");
      else showError(error, notice);
    }
  });
  root.replaceChildren(form, results);
  await load();
}

function row(label: string, value: string | HTMLElement | undefined): HTMLElement | null {
  if (value === undefined || value === "") return null;
  return h("div", { class: "kv" }, h("dt", {}, label), h("dd", {}, value));
}

export async function renderDetail(
  root: HTMLElement,
  id: string,
  onBack: () => void,
): Promise<void> {
  const answer = await getJson<DetailAnswer>(`payouts/${encodeURIComponent(id)}`);
  const { payout, names } = answer;
  const nameOf = (userId: number | undefined) =>
    userId === undefined
      ? undefined
      : userId === 0
        ? t("detail.actor_system")
        : (names[String(userId)] ?? String(userId));
  // Inside Telegram its own Back button leads back; in a plain browser, a button of ours.
  const native = setBack(onBack);
  const back = native
    ? null
    : h("button", { type: "button", class: "secondary back" }, `← ${t("detail.back")}`);
  back?.addEventListener("click", onBack);
  root.replaceChildren(
    ...(back ? [back] : []),
    h(
      "section",
      { class: "card", "aria-labelledby": "detail-title", "data-testid": "payout-detail" },
      h("h2", { id: "detail-title" }, t("detail.title")),
      h(
        "dl",
        { class: "kvs" },
        row(t("detail.recipient"), payout.recipientName),
        row(t("detail.number"), phone(payout.phone)),
        row(t("detail.operator"), t(`operator.${payout.operator}`)),
        row(t("detail.amount"), money(payout.amount)),
        row(t("detail.fee"), payout.fee === undefined ? undefined : money(payout.fee)),
        row(t("detail.status"), statusBadge(payout.status)),
        row(t("detail.payment_id"), payout.paymentId ? h("code", {}, payout.paymentId) : undefined),
        row(t("detail.initiator"), nameOf(payout.initiatorId)),
        row(t("detail.approver"), nameOf(payout.approvedBy)),
        row(t("detail.created"), when(payout.createdAtMs)),
        row(
          t("detail.settled"),
          payout.settledAtMs === undefined ? undefined : when(payout.settledAtMs),
        ),
        row(t("detail.note"), payout.note),
      ),
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "trail-title" },
      h("h2", { id: "trail-title" }, t("detail.trail")),
      answer.trail.length === 0
        ? h("p", { class: "muted" }, t("detail.trail_empty"))
        : h(
            "ol",
            { class: "trail", "data-testid": "audit-trail" },
            ...answer.trail.map((entry) =>
              h(
                "li",
                {},
                h("time", {}, when(entry.atMs)),
                h("span", {}, `${entry.label} · ${nameOf(entry.actorId) ?? entry.actorId}`),
              ),
            ),
          ),
      !answer.trailComplete && h("p", { class: "muted" }, t("detail.trail_incomplete")),
    ),
  );
  back?.focus();
}
