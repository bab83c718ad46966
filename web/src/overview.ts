/**
 * Overview: today's paid volume; the last 30 days' paid volume, count, success rate and
 * failed volume, each paid figure with its change against the 30 days before; the paid
 * volume as a bar chart by operator; and what waits.
 */
import { getJson } from "./api.js";
import { h, svg } from "./dom.js";
import { count, currentLang, money, percent, phone, shortDay, t } from "./i18n.js";
import type { AttentionList, Overview } from "./types.js";

const WIDTH = 320;
const HEIGHT = 150;
const AXIS = 18;
/** Room on the left for the scale's labels. */
const SCALE = 34;

/** `60000` → `60k` / `60 k`: the scale's labels, short. */
function compact(value: number): string {
  return new Intl.NumberFormat(currentLang() === "fr" ? "fr-FR" : "en-US", {
    notation: "compact",
    maximumFractionDigits: 1,
  }).format(value);
}

/** A round top for the scale: 1, 2 or 5 times a power of ten, at least `max`. */
function niceTop(max: number): number {
  const power = 10 ** Math.floor(Math.log10(max));
  return ([1, 2, 5, 10].find((step) => step * power >= max) ?? 10) * power;
}

function chart(days: Overview["days"], onPick: (label: string, index: number) => void): SVGElement {
  const max = niceTop(Math.max(1, ...days.map((day) => day.mtn + day.orange)));
  const slot = (WIDTH - SCALE) / Math.max(1, days.length);
  const bar = Math.max(2, slot * 0.7);
  const plot = HEIGHT - AXIS;
  // The scale: 0, half and the top, each a faint line with its amount.
  const scale = [0, max / 2, max].flatMap((value) => {
    const y = plot - (value / max) * plot;
    return [
      svg("line", { class: "grid", x1: SCALE, x2: WIDTH, y1: y, y2: y }),
      svg(
        "text",
        { class: "axis", x: SCALE - 4, y: Math.max(8, y + 3), "text-anchor": "end" },
        compact(value),
      ),
    ];
  });
  const bars = days.flatMap((day, index) => {
    const x = SCALE + index * slot + (slot - bar) / 2;
    const mtnHeight = (day.mtn / max) * plot;
    const orangeHeight = (day.orange / max) * plot;
    const label = t("overview.bar_label", {
      day: shortDay(day.day),
      mtn: money(day.mtn),
      orange: money(day.orange),
    });
    const group = svg(
      "g",
      {
        "data-testid": day.mtn + day.orange > 0 ? "bar" : "empty-day",
        "data-index": index,
        role: "button",
        tabindex: 0,
        "aria-label": label,
      },
      svg("title", {}, label),
      // The whole slot answers a tap, not only the coloured part.
      svg("rect", { class: "bar-bg", x: x - (slot - bar) / 2, y: 0, width: slot, height: plot }),
      day.orange > 0 &&
        svg("rect", {
          class: "bar-orange",
          x,
          y: plot - orangeHeight,
          width: bar,
          height: orangeHeight,
          rx: 2,
        }),
      day.mtn > 0 &&
        svg("rect", {
          class: "bar-mtn",
          x,
          y: plot - orangeHeight - mtnHeight,
          width: bar,
          height: mtnHeight,
          rx: 2,
        }),
    );
    group.addEventListener("click", () => onPick(label, index));
    group.addEventListener("keydown", (event) => {
      if (event instanceof KeyboardEvent && (event.key === "Enter" || event.key === " ")) {
        event.preventDefault();
        onPick(label, index);
      }
    });
    const last = index === days.length - 1;
    const tick =
      last || (index % 7 === (days.length - 1) % 7 && index < days.length - 4)
        ? svg(
            "text",
            {
              class: "axis",
              x: last ? x + bar : x + bar / 2,
              y: HEIGHT - 4,
              "text-anchor": last ? "end" : "middle",
            },
            shortDay(day.day),
          )
        : null;
    return tick ? [group, tick] : [group];
  });
  return svg(
    "svg",
    {
      class: "chart",
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: "group",
      "aria-label": t("overview.chart_label"),
      preserveAspectRatio: "none",
    },
    // Orange's bars are striped: told from MTN's by more than a hue.
    svg(
      "defs",
      {},
      svg(
        "pattern",
        {
          id: "stripes",
          width: 4,
          height: 4,
          patternUnits: "userSpaceOnUse",
          patternTransform: "rotate(45)",
        },
        svg("rect", { class: "stripe-bg", width: 4, height: 4 }),
        svg("rect", { class: "stripe", width: 2, height: 4 }),
      ),
    ),
    ...scale,
    ...bars,
  );
}

/** A signed figure with a true minus sign: `+12%` / `−8 %` (U+202F before % in French). */
function signed(value: number, format: (magnitude: number) => string): string {
  const rounded = Math.round(Math.abs(value) * 1000) / 1000;
  const sign = rounded === 0 ? "±" : value > 0 ? "+" : "\u2212";
  return `${sign}${format(rounded)}`;
}

/**
 * A figure's change against the 30 days before, as a chip: relative for amounts and counts,
 * in percentage points for a rate; "no earlier data" when the 30 days before had nothing.
 */
function delta(current: number | null, before: number | null | undefined, rate = false) {
  if (before === undefined) {
    return h("span", { class: "delta none", "data-testid": "delta" }, t("overview.no_earlier"));
  }
  if (current === null || before === null) return null;
  if (!rate && before === 0) {
    const text = current === 0 ? signed(0, percent) : t("overview.none_before");
    return h("span", { class: "delta none", "data-testid": "delta" }, text);
  }
  const change = rate ? current - before : (current - before) / before;
  const text = rate
    ? t("overview.points", { value: signed(change * 100, (n) => count1(n)) })
    : signed(change, percent);
  const direction = change > 0.0005 ? "up" : change < -0.0005 ? "down" : "flat";
  return h(
    "span",
    {
      class: `delta ${direction}`,
      "data-testid": "delta",
      "aria-label": t("overview.change_label", { change: text }),
    },
    direction === "up" ? "\u25B2 " : direction === "down" ? "\u25BC " : "",
    text,
  );
}

/** `2.5` → `2.5` / `2,5`: one decimal at most. */
function count1(value: number): string {
  return new Intl.NumberFormat(currentLang() === "fr" ? "fr-FR" : "en-US", {
    maximumFractionDigits: 1,
  }).format(value);
}

function stat(
  label: string,
  value: string,
  sub?: string | null,
  change?: HTMLElement | null,
  testId?: string,
): HTMLElement {
  return h(
    "div",
    { class: "stat", ...(testId ? { "data-testid": testId } : {}) },
    h("div", { class: "stat-label" }, label),
    h("div", { class: "stat-value" }, value),
    change || sub
      ? h("div", { class: "stat-sub" }, change ?? null, change && sub ? " " : "", sub ?? "")
      : null,
  );
}

function attention(
  title: string,
  list: AttentionList,
  onOpen: (id: string) => void,
): HTMLElement | null {
  if (list.count === 0) return null;
  return h(
    "section",
    { class: "card attention", "aria-label": title },
    h("h3", {}, title, " ", h("span", { class: "badge" }, count(list.count))),
    h(
      "ul",
      { class: "list" },
      ...list.items.map((item) => {
        const button = h(
          "button",
          { type: "button", class: "row-button" },
          h(
            "span",
            { class: "row-main" },
            item.recipientName || phone(item.phone),
            h("small", {}, phone(item.phone)),
          ),
          h("span", { class: "row-amount" }, money(item.amount)),
        );
        button.addEventListener("click", () => onOpen(item.id));
        return h("li", {}, button);
      }),
    ),
  );
}

export async function renderOverview(
  root: HTMLElement,
  onOpen: (id: string) => void,
): Promise<void> {
  const overview = await getJson<Overview>("overview");
  const rate =
    overview.successRate === null ? t("overview.no_rate") : percent(overview.successRate);
  const blocks = [
    attention(t("attention.waiting"), overview.attention.awaitingApproval, onOpen),
    attention(t("attention.unknown"), overview.attention.unknown, onOpen),
    attention(t("attention.stuck"), overview.attention.stuck, onOpen),
  ].filter((block): block is HTMLElement => block !== null);
  // A tap on a bar reads its day here (a phone cannot hover a title).
  const readout = h(
    "p",
    { class: "readout", "aria-live": "polite", "data-testid": "day-readout" },
    t("overview.tap_hint"),
  );
  const picked = (label: string, index: number) => {
    readout.textContent = label;
    for (const bar of root.querySelectorAll("[data-index]")) {
      bar.classList.toggle("picked", bar.getAttribute("data-index") === String(index));
    }
  };
  const before = overview.previous;
  const was = <K extends keyof NonNullable<Overview["previous"]>>(key: K) =>
    before === null ? undefined : before[key];
  root.replaceChildren(
    h(
      "section",
      { class: "card today", "data-testid": "today" },
      h("h2", {}, t("overview.today_title")),
      h("div", { class: "today-value" }, money(overview.today.paidXaf)),
      h(
        "div",
        { class: "stat-sub" },
        t("overview.paid_count", { count: overview.today.paidCount }),
      ),
    ),
    h(
      "section",
      { class: "card" },
      h("h2", {}, t("overview.title")),
      h(
        "div",
        { class: "stats" },
        stat(
          t("overview.paid"),
          money(overview.paidXaf),
          null,
          delta(overview.paidXaf, was("paidXaf")),
          "paid",
        ),
        stat(
          t("overview.count"),
          count(overview.paidCount),
          null,
          delta(overview.paidCount, was("paidCount")),
          "count",
        ),
        stat(
          t("overview.success_rate"),
          rate,
          null,
          delta(overview.successRate, was("successRate"), true),
          "rate",
        ),
        stat(
          t("overview.failed"),
          money(overview.failedXaf),
          t("overview.paid_count", { count: overview.failedCount }),
          null,
          "failed",
        ),
        stat(t("overview.fees"), money(overview.feesXaf)),
      ),
      h("p", { class: "muted compare" }, t("overview.compare_hint")),
      chart(overview.days, picked),
      readout,
      h(
        "div",
        { class: "legend", "aria-hidden": "true" },
        h("span", { class: "key key-mtn" }, t("operator.mtn")),
        h("span", { class: "key key-orange" }, t("operator.orange")),
      ),
    ),
    h("h2", { class: "section-title" }, t("overview.attention")),
    ...(blocks.length > 0 ? blocks : [h("p", { class: "muted card" }, t("overview.nothing"))]),
  );
}
