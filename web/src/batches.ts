/** Batches: each batch, and its rows with how each stands, filtered to one standing. */
import { getJson } from "./api.js";
import { clear, h } from "./dom.js";
import { money, phone, t, when } from "./i18n.js";
import type { BatchRowView, BatchView, Names, Standing } from "./types.js";

const FILTERS: Array<Standing | ""> = ["", "skipped", "failed", "unknown", "pending", "paid"];

async function renderRows(target: HTMLElement, batch: BatchView, only: string): Promise<void> {
  clear(target, h("p", { class: "muted" }, t("app.loading")));
  const answer = await getJson<{ rows: BatchRowView[]; truncated: boolean }>(
    `batches/${encodeURIComponent(batch.id)}${only ? `?only=${only}` : ""}`,
  );
  clear(
    target,
    answer.rows.length === 0
      ? h("p", { class: "muted" }, t("batches.no_rows"))
      : h(
          "ul",
          { class: "list", "data-testid": "batch-rows" },
          ...answer.rows.map((row) =>
            h(
              "li",
              { class: "batch-row" },
              h(
                "span",
                { class: "row-main" },
                row.name ?? phone(row.phone),
                h(
                  "small",
                  {},
                  `${t("batches.row", { row: row.row })} · ${phone(row.phone)}${row.problemLabel ? ` · ${row.problemLabel}` : ""}`,
                ),
              ),
              h(
                "span",
                { class: "row-side" },
                h(
                  "span",
                  { class: "row-amount" },
                  row.amount === undefined ? "—" : money(row.amount),
                ),
                h(
                  "span",
                  { class: `badge standing-${row.standing}` },
                  t(`standing.${row.standing}`),
                ),
              ),
            ),
          ),
        ),
    answer.truncated && h("p", { class: "muted" }, t("batches.truncated")),
  );
}

export async function renderBatches(
  root: HTMLElement,
  showError: (error: unknown, where: HTMLElement) => void,
): Promise<void> {
  const answer = await getJson<{ batches: BatchView[]; names: Names }>("batches");
  if (answer.batches.length === 0) {
    root.replaceChildren(h("p", { class: "muted card" }, t("batches.empty")));
    return;
  }
  root.replaceChildren(
    ...answer.batches.map((batch) => {
      const rows = h("div", { class: "rows" });
      const filterId = `batch-filter-${batch.id}`;
      const filter = h(
        "select",
        { id: filterId },
        ...FILTERS.map((value) =>
          h("option", { value }, value === "" ? t("batches.all") : t(`standing.${value}`)),
        ),
      );
      const details = h(
        "details",
        { class: "card batch" },
        h(
          "summary",
          {},
          h(
            "span",
            { class: "row-main" },
            batch.fileName,
            h(
              "small",
              {},
              `${when(batch.createdAtMs)} · ${answer.names[String(batch.initiatorId)] ?? batch.initiatorId}`,
            ),
          ),
          h(
            "span",
            { class: "row-side" },
            h("span", {}, t("batches.rows", { count: batch.rowCount })),
            h("span", { class: "badge" }, batch.stateLabel),
          ),
        ),
        h(
          "div",
          { class: "field inline" },
          h("label", { for: filterId }, t("batches.show")),
          filter,
        ),
        rows,
      );
      const load = () =>
        renderRows(rows, batch, filter.value).catch((error: unknown) => showError(error, rows));
      details.addEventListener("toggle", () => {
        if (details.open && rows.childElementCount === 0) void load();
      });
      filter.addEventListener("change", () => void load());
      return details;
    }),
  );
}
