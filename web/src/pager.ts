/** The Previous / "page N of M" / Next bar under a paged list (History, Recipients). */
import { h } from "./dom.js";
import { count, t } from "./i18n.js";

/** Where a paged answer stands: its page (from 0), all its items, and how many a page holds. */
export interface PageAt {
  page: number;
  total: number;
  pageSize: number;
}

/**
 * The bar for `at`, or false when everything fits one page; `move(-1)` or `move(1)` is called
 * on Previous or Next (the caller moves its own page and loads again).
 */
export function pager(
  at: PageAt,
  label: string,
  move: (delta: -1 | 1) => void,
): HTMLElement | false {
  const pages = Math.max(1, Math.ceil(at.total / at.pageSize));
  if (pages <= 1) return false;
  const prev = h(
    "button",
    { type: "button", class: "secondary", disabled: at.page === 0 },
    t("history.prev"),
  );
  const next = h(
    "button",
    { type: "button", class: "secondary", disabled: at.page + 1 >= pages },
    t("history.next"),
  );
  prev.addEventListener("click", () => move(-1));
  next.addEventListener("click", () => move(1));
  return h(
    "nav",
    { class: "pager", "aria-label": label },
    prev,
    h("span", {}, t("history.page", { page: count(at.page + 1), pages: count(pages) })),
    next,
  );
}
