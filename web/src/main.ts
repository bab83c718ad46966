/**
 * The Mini App's page: reads Telegram's launch parameters, asks the server who this is
 * (`/app/api/me`), and shows Overview, History, Batches, (for those who may approve)
 * Approvals, Schedules and Saved recipients as tabs. Any refusal is said in words: a stale or forged sign-in, someone not
 * on staff, a role that may not.
 */

import { ApiError, getJson, setInitData, setMerchant } from "./api.js";
import { renderApprovals } from "./approvals.js";
import { renderBatches } from "./batches.js";
import { clear, h } from "./dom.js";
import { renderDetail, renderHistory } from "./history.js";
import { count, type Key, setLang, t } from "./i18n.js";
import { applyTheme, readLaunch } from "./launch.js";
import { renderOverview } from "./overview.js";
import { renderRecipients } from "./recipients.js";
import { renderSchedules } from "./schedules.js";
import { renderStepUp, stepUpTarget } from "./step-up.js";
import { setBack, startTelegram } from "./telegram.js";
import type { Me } from "./types.js";

type Tab = "overview" | "history" | "batches" | "approvals" | "schedules" | "recipients";

const app = document.getElementById("app") as HTMLElement;

function errorText(error: unknown): string {
  if (!(error instanceof ApiError)) return t("error.network");
  if (error.status === 0) return t("error.network");
  if (error.status === 401) {
    const reason = error.reason ?? "missing";
    const known: Key[] = [
      "error.missing",
      "error.bad_signature",
      "error.expired",
      "error.from_the_future",
      "error.malformed",
      "error.no_user",
      "error.pin_stale",
      "error.stale_for_change",
    ];
    const key = `error.${reason}` as Key;
    return t(known.includes(key) ? key : "error.bad_signature");
  }
  if (error.status === 403)
    return t(error.reason === "not_staff" ? "error.not_staff" : "error.role");
  if (error.status === 429) return t("error.rate");
  return t("error.generic");
}

/** Shows the current tab again (set by the shell): an error's Retry. */
let reshow: (() => void) | null = null;

function showError(error: unknown, where: HTMLElement): void {
  const retry =
    reshow && !(error instanceof ApiError && [401, 403].includes(error.status))
      ? h(
          "button",
          { type: "button", class: "secondary", "data-testid": "retry" },
          t("error.retry"),
        )
      : null;
  const again = reshow;
  if (retry && again) retry.addEventListener("click", () => again());
  clear(
    where,
    h("span", { class: "error", role: "alert", "data-testid": "error" }, errorText(error)),
    retry,
  );
}

function fatal(error: unknown): void {
  const retry = h("button", { type: "button" }, t("error.retry"));
  retry.addEventListener("click", () => location.reload());
  clear(
    app,
    h(
      "section",
      { class: "card fatal", role: "alert", "data-testid": "fatal" },
      h("h1", {}, t("error.title")),
      h("p", {}, errorText(error)),
      error instanceof ApiError && error.status >= 500 ? retry : null,
    ),
  );
}

/**
 * Which business the page shows, as a selector of the person's businesses. Switching shows
 * the other one's pages; it does not change the business the chat's commands act on
 * (/merchant does that).
 */
function merchantSwitcher(me: Me): HTMLElement {
  const select = h("select", {
    class: "merchant",
    "data-testid": "merchant",
    "aria-label": t("merchant.label"),
  }) as HTMLSelectElement;
  for (const merchant of me.merchants ?? []) {
    const option = h("option", { value: merchant.id }, merchant.name) as HTMLOptionElement;
    option.selected = merchant.id === me.merchantId;
    select.append(option);
  }
  select.addEventListener("change", () => {
    setMerchant(select.value);
    void open();
  });
  return select;
}

function shell(me: Me): void {
  const tabs: Tab[] = ["overview", "history", "batches"];
  if (me.role === "admin" || me.role === "approver") tabs.push("approvals");
  tabs.push("schedules", "recipients");
  const canExport = me.role === "admin" || me.role === "viewer";
  const panel = h("main", { id: "panel", role: "tabpanel", tabindex: "-1" });
  const buttons = new Map<Tab, HTMLButtonElement>();
  let current: Tab = "overview";

  // Each view renders into a fresh container: a slow answer for a view left since lands in
  // a detached one and never overwrites the view on screen.
  const freshView = (): HTMLElement => {
    // Grey blocks where the view will be, read out as "Loading".
    const view = h(
      "div",
      {},
      h(
        "div",
        { class: "placeholder", role: "status", "aria-label": t("app.loading") },
        h("div", { class: "skeleton tall" }),
        h("div", { class: "skeleton" }),
        h("div", { class: "skeleton" }),
      ),
    );
    clear(panel, view);
    return view;
  };

  const openPayout = (id: string) => {
    const view = freshView();
    renderDetail(view, id, () => select(current)).catch((error: unknown) => showError(error, view));
  };

  const select = (tab: Tab, focus = false) => {
    current = tab;
    setBack(null);
    for (const [name, button] of buttons) {
      button.setAttribute("aria-selected", String(name === tab));
      button.tabIndex = name === tab ? 0 : -1;
    }
    if (focus) buttons.get(tab)?.focus();
    buttons.get(tab)?.scrollIntoView({ block: "nearest", inline: "nearest" });
    panel.setAttribute("aria-labelledby", `tab-${tab}`);
    const view = freshView();
    reshow = () => select(tab);
    const render = {
      overview: () => renderOverview(view, openPayout),
      history: () => renderHistory(view, openPayout, showError, canExport),
      batches: () => renderBatches(view, showError),
      approvals: () => renderApprovals(view, showError),
      schedules: () => renderSchedules(view, showError),
      recipients: () => renderRecipients(view, showError),
    }[tab];
    render().catch((error: unknown) => showError(error, view));
  };

  // How many wait for a decision, on the Approvals tab.
  const waiting = h("span", { class: "tab-count", "data-testid": "approvals-count" });
  const tablist = h("nav", { class: "tabs", role: "tablist", "aria-label": t("nav.label") });
  for (const tab of tabs) {
    const button = h(
      "button",
      { type: "button", role: "tab", id: `tab-${tab}`, "aria-controls": "panel", "data-tab": tab },
      t(`tab.${tab}`),
      tab === "approvals" ? waiting : null,
    );
    button.addEventListener("click", () => select(tab));
    button.addEventListener("keydown", (event) => {
      const index = tabs.indexOf(tab);
      const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
      if (step === 0) return;
      event.preventDefault();
      select(tabs[(index + step + tabs.length) % tabs.length] ?? tab, true);
    });
    buttons.set(tab, button);
    tablist.append(button);
  }
  clear(
    app,
    h(
      "header",
      { class: "top" },
      h("h1", {}, t("app.title")),
      // A person who works for several businesses sees which one this page is about.
      me.merchant ? merchantSwitcher(me) : null,
      h(
        "span",
        { class: "who", "data-testid": "who" },
        t("app.signed_in", { name: me.name, role: t(`role.${me.role}`) }),
      ),
    ),
    tablist,
    panel,
  );
  select("overview");
  if (tabs.includes("approvals")) {
    getJson<{ items: unknown[] }>("approvals")
      .then((answer) => {
        waiting.textContent = answer.items.length > 0 ? count(answer.items.length) : "";
        waiting.setAttribute("aria-label", t("tab.waiting", { n: answer.items.length }));
      })
      // Only a hint: the tab itself says why, should the list not load.
      .catch(() => undefined);
  }
}

async function start(): Promise<void> {
  const launch = readLaunch();
  applyTheme(launch.theme);
  startTelegram();
  setLang(launch.languageCode?.toLowerCase().startsWith("fr") ? "fr" : "en");
  document.title = t("app.title");
  setInitData(launch.initData);
  // A "… with PIN" button of one merchant's message names it (m): its payout is there.
  const named = new URLSearchParams(location.search).get("m");
  if (named) setMerchant(named);
  await open();
}

/** Asks who this is (for the merchant chosen, if any) and shows the page. */
async function open(): Promise<void> {
  try {
    const me = await getJson<Me>("me");
    setLang(me.language);
    document.title = t("app.title");
    // Opened from a chat's "Confirm with PIN" button: that one payout, nothing else.
    const target = stepUpTarget();
    if (target) await renderStepUp(app, target, errorText);
    else shell(me);
  } catch (error) {
    fatal(error);
  }
}

void start();
