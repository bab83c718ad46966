/**
 * History's search bar: one text box (a number, words of a name or note, a payment id, a
 * staff member, or an amount written with its currency: `5000 FCFA`) and a row of chips for
 * status, operator, dates and kind (and the amount, once searched). A chip opens its
 * choices below the row; a chosen one shows its value with ✕ to remove it. Each maps onto
 * the History API's own query parameters (q, amount, status, operator, kind, from, to).
 */
import { h, svg } from "./dom.js";
import { money, shortDay, t } from "./i18n.js";
import type { Status } from "./types.js";

const STATUSES: Status[] = ["paid", "failed", "pending", "unknown", "waiting", "other"];
const OPERATORS = ["mtn", "orange"] as const;
const KINDS = ["disbursement", "collection"] as const;

export type Range = "" | "today" | "7" | "30" | "custom";

export interface Filters {
  q: string;
  status: string;
  kind: string;
  operator: string;
  /** An amount in XAF, from the box: `5000 FCFA`, `5 000 XAF`. */
  amount: string;
  from: string;
  to: string;
  /** Which date chip was chosen (from and to follow from it). */
  range: Range;
  page: number;
}

export function emptyFilters(): Filters {
  return {
    q: "",
    status: "",
    kind: "",
    operator: "",
    amount: "",
    from: "",
    to: "",
    range: "",
    page: 0,
  };
}

/** The API's query string for `filters` (the page number only when asked). */
export function queryString(filters: Filters, withPage: boolean): string {
  const params = new URLSearchParams();
  for (const key of ["q", "amount", "status", "kind", "operator", "from", "to"] as const) {
    if (filters[key] !== "") params.set(key, filters[key]);
  }
  if (withPage && filters.page > 0) params.set("page", String(filters.page));
  return params.toString();
}

/** The device's day `daysBack` days ago as YYYY-MM-DD. */
function dayBack(daysBack: number): string {
  const date = new Date();
  date.setDate(date.getDate() - daysBack);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/**
 * The amount in a box's text written with its currency (`5000 FCFA`, `5 000 XAF`, `5,000 F`),
 * as digits; "" otherwise. A bare number is not taken for one: it is a phone number or a
 * staff member's id.
 */
export function amountIn(text: string): string {
  const match = /^(\d[\d\s.,\u00A0\u202F]*)\s*(?:fcfa|xaf|cfa|f)$/i.exec(text.trim());
  const digits = match?.[1]?.replace(/\D/g, "") ?? "";
  return /^[1-9]\d{0,9}$/.test(digits) ? digits : "";
}

type Chip = "status" | "operator" | "dates" | "kind";

interface Choice {
  label: string;
  chosen: boolean;
  pick: () => void;
}

/** The search bar; `onSearch` runs after each change (the filters already updated). */
export function searchBar(
  filters: Filters,
  onSearch: () => void,
  below: Array<HTMLElement | null | false>,
): HTMLElement {
  let open: Chip | null = null;
  const input = h("input", {
    type: "search",
    placeholder: t("history.search"),
    "aria-label": t("history.search"),
    "aria-describedby": "history-hint",
    value: filters.q,
    autocomplete: "off",
    enterkeyhint: "search",
  });
  const chips = h("div", { class: "chips", role: "group", "aria-label": t("history.filters") });
  const panel = h("div", { class: "chip-panel", "data-testid": "chip-panel" });

  const changed = () => {
    filters.page = 0;
    open = null;
    draw();
    onSearch();
  };
  const chosenLabel = (chip: Chip): string => {
    if (chip === "status") {
      const status = STATUSES.find((s) => s === filters.status);
      return status ? t(`status.${status}`) : "";
    }
    if (chip === "operator") {
      const operator = OPERATORS.find((o) => o === filters.operator);
      return operator ? t(`operator.${operator}`) : "";
    }
    if (chip === "kind") {
      const kind = KINDS.find((k) => k === filters.kind);
      return kind ? t(`kind.${kind}`) : "";
    }
    if (filters.range === "today") return t("history.range_today");
    if (filters.range === "7" || filters.range === "30") {
      return t("history.range_days", { days: filters.range });
    }
    if (filters.from === "" && filters.to === "") return "";
    const ends = [filters.from, filters.to].map((day) => (day === "" ? "…" : shortDay(day)));
    return ends.join(" – ");
  };
  const clearChip = (chip: Chip) => {
    if (chip === "dates") Object.assign(filters, { from: "", to: "", range: "" });
    else filters[chip] = "";
  };
  const choicesOf = (chip: Chip): Choice[] => {
    const set =
      (key: "status" | "operator" | "kind", value: string): Choice["pick"] =>
      () => {
        filters[key] = value;
        changed();
      };
    if (chip === "status") {
      return STATUSES.map((s) => ({
        label: t(`status.${s}`),
        chosen: filters.status === s,
        pick: set("status", s),
      }));
    }
    if (chip === "operator") {
      return OPERATORS.map((o) => ({
        label: t(`operator.${o}`),
        chosen: filters.operator === o,
        pick: set("operator", o),
      }));
    }
    if (chip === "kind") {
      return KINDS.map((k) => ({
        label: t(`kind.${k}`),
        chosen: filters.kind === k,
        pick: set("kind", k),
      }));
    }
    const range = (value: Range, back: number, label: string): Choice => ({
      label,
      chosen: filters.range === value,
      pick: () => {
        Object.assign(filters, { range: value, from: dayBack(back), to: dayBack(0) });
        changed();
      },
    });
    return [
      range("today", 0, t("history.range_today")),
      range("7", 6, t("history.range_days", { days: 7 })),
      range("30", 29, t("history.range_days", { days: 30 })),
    ];
  };

  /** The custom dates: two day fields and Apply, under the ranges. */
  const customDates = (): HTMLElement => {
    const from = h("input", { type: "date", value: filters.from, id: "history-from" });
    const to = h("input", { type: "date", value: filters.to, id: "history-to" });
    const apply = h("button", { type: "button", class: "chip-apply" }, t("history.apply_dates"));
    apply.addEventListener("click", () => {
      Object.assign(filters, { range: "custom", from: from.value, to: to.value });
      changed();
    });
    return h(
      "div",
      { class: "custom-dates" },
      h("label", { for: "history-from" }, t("history.from")),
      from,
      h("label", { for: "history-to" }, t("history.to")),
      to,
      apply,
    );
  };

  /** The amount searched, as a chip of its own with ✕ (it has no choices). */
  const amountChip = (): HTMLElement | null => {
    if (filters.amount === "") return null;
    const value = money(Number(filters.amount));
    const name = t("history.chip_amount");
    const remove = h(
      "button",
      {
        type: "button",
        class: "chip-x",
        "aria-label": t("history.remove_filter", { name, value }),
      },
      "✕",
    );
    remove.addEventListener("click", () => {
      filters.amount = "";
      input.value = "";
      changed();
    });
    return h(
      "span",
      { class: "chip on", "data-testid": "chip-amount" },
      h("span", { class: "chip-main chip-text" }, value),
      remove,
    );
  };

  const draw = () => {
    const all: Chip[] = ["status", "operator", "dates", "kind"];
    const amount = amountChip();
    chips.replaceChildren(...(amount ? [amount] : []));
    chips.append(
      ...all.map((chip) => {
        const name = t(`history.chip_${chip}`);
        const value = chosenLabel(chip);
        const main = h(
          "button",
          {
            type: "button",
            class: "chip-main",
            "aria-expanded": String(open === chip),
            "data-chip": chip,
          },
          value === "" ? `${name} ▾` : value,
        );
        main.addEventListener("click", () => {
          open = open === chip ? null : chip;
          draw();
        });
        if (value === "") return h("span", { class: "chip" }, main);
        const remove = h(
          "button",
          {
            type: "button",
            class: "chip-x",
            "aria-label": t("history.remove_filter", { name, value }),
          },
          "✕",
        );
        remove.addEventListener("click", () => {
          clearChip(chip);
          changed();
        });
        return h("span", { class: "chip on", "data-testid": `chip-${chip}` }, main, remove);
      }),
    );
    if (open === null) {
      panel.replaceChildren();
      panel.hidden = true;
      return;
    }
    const options = choicesOf(open).map((choice) => {
      const button = h(
        "button",
        { type: "button", class: "choice", "aria-pressed": String(choice.chosen) },
        choice.label,
      );
      button.addEventListener("click", choice.pick);
      return button;
    });
    panel.hidden = false;
    panel.replaceChildren(h("div", { class: "choices" }, ...options));
    if (open === "dates") panel.append(customDates());
  };

  const form = h(
    "form",
    { class: "card searchbar", role: "search" },
    h(
      "div",
      { class: "search-row" },
      input,
      h(
        "button",
        { type: "submit", class: "search-go", "aria-label": t("history.apply") },
        // A magnifier: the box keeps the width for its placeholder.
        svg(
          "svg",
          { viewBox: "0 0 24 24", width: 22, height: 22, "aria-hidden": "true" },
          svg("circle", { cx: 10.5, cy: 10.5, r: 6.5 }),
          svg("line", { x1: 15.5, y1: 15.5, x2: 21, y2: 21 }),
        ),
      ),
    ),
    // What the box takes, in full below it (a placeholder this long would be cut at 390 px).
    h("p", { class: "muted search-hint", id: "history-hint" }, t("history.placeholder")),
    chips,
    panel,
    ...below,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    filters.amount = amountIn(text);
    filters.q = filters.amount === "" ? text : "";
    changed();
  });
  // A cleared box (its ✕, or emptied) searches again without Enter.
  input.addEventListener("search", () => {
    if (input.value === "" && (filters.q !== "" || filters.amount !== "")) {
      filters.q = "";
      filters.amount = "";
      changed();
    }
  });
  draw();
  return form;
}
