/** Overview: the 30 days' paid volume as a bar chart by operator, rates, and what waits. */
import { getJson } from "./api.js";
import { h, svg } from "./dom.js";
import { count, money, percent, phone, shortDay, t } from "./i18n.js";
import type { AttentionList, Overview } from "./types.js";

const WIDTH = 320;
const HEIGHT = 150;
const AXIS = 18;

function chart(days: Overview["days"]): SVGElement {
  const max = Math.max(1, ...days.map((day) => day.mtn + day.orange));
  const slot = WIDTH / Math.max(1, days.length);
  const bar = Math.max(2, slot * 0.7);
  const plot = HEIGHT - AXIS;
  const bars = days.flatMap((day, index) => {
    const x = index * slot + (slot - bar) / 2;
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
        role: "img",
        "aria-label": label,
      },
      svg("title", {}, label),
      svg("rect", { class: "bar-bg", x, y: 0, width: bar, height: plot, rx: 2 }),
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
    ...bars,
  );
}

function stat(label: string, value: string, sub?: string): HTMLElement {
  return h(
    "div",
    { class: "stat" },
    h("div", { class: "stat-label" }, label),
    h("div", { class: "stat-value" }, value),
    sub ? h("div", { class: "stat-sub" }, sub) : null,
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
  root.replaceChildren(
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
          t("overview.paid_count", { count: overview.paidCount }),
        ),
        stat(t("overview.success_rate"), rate),
        stat(t("overview.fees"), money(overview.feesXaf)),
      ),
      chart(overview.days),
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
