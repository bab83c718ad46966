/**
 * Schedules: each scheduled or recurring payout the reader may see, with its plan in words,
 * its next runs (in the merchant's time zone, as the chat shows them), who set it up, and
 * Pause, Resume and Delete for those the server says may change it (its owner, an admin).
 * The server decides with the chat buttons' own step; the page disables a card's buttons
 * from the first press until the answer, and shows the schedule as the server returns it.
 */
import { ApiError, getJson, postJson } from "./api.js";
import { askFirst } from "./confirm.js";
import { clear, h } from "./dom.js";
import { currentLang, type Key, money, phone, t } from "./i18n.js";
import type { Names, Recurrence, ScheduleState, SchedulesAnswer, ScheduleView } from "./types.js";

type ShowError = (error: unknown, where: HTMLElement) => void;
type Change = "pause" | "resume" | "delete";

const FILTERS: Array<ScheduleState | ""> = [
  "",
  "active",
  "paused",
  "finished",
  "awaiting_approval",
];

const BADGE: Record<ScheduleState, string> = {
  active: "status-paid",
  paused: "status-waiting",
  awaiting_approval: "status-pending",
  finished: "",
  deleted: "status-failed",
};

const DONE: Record<Change, Key> = {
  pause: "schedules.paused",
  resume: "schedules.resumed",
  delete: "schedules.deleted",
};

const tag = () => (currentLang() === "fr" ? "fr-FR" : "en-GB");

/** ISO weekday (1 Monday) in the reader's words: 1 Jan 2024 was a Monday. */
function weekdayName(weekday: number): string {
  return new Intl.DateTimeFormat(tag(), { weekday: "long", timeZone: "UTC" }).format(
    Date.UTC(2024, 0, weekday),
  );
}

/** How often it runs, in words. */
export function planText(recurrence: Recurrence): string {
  switch (recurrence.kind) {
    case "once": {
      const [y, m, d] = recurrence.date.split("-").map(Number);
      const date = new Intl.DateTimeFormat(tag(), { dateStyle: "medium", timeZone: "UTC" }).format(
        Date.UTC(y ?? 2000, (m ?? 1) - 1, d ?? 1),
      );
      return t("schedules.plan_once", { date, time: recurrence.time });
    }
    case "monthly":
      return recurrence.day === "last"
        ? t("schedules.plan_month_last", { time: recurrence.time })
        : t("schedules.plan_month", { day: recurrence.day, time: recurrence.time });
    case "weekly":
      return t("schedules.plan_week", {
        weekday: weekdayName(recurrence.weekday),
        time: recurrence.time,
      });
  }
}

/** A run's time in TIME_ZONE with its offset, as the chat writes it: "Fri, 27 Nov 2026, 09:00 UTC+1". */
function runTime(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat(tag(), {
    timeZone,
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZoneName: "shortOffset",
  })
    .format(ms)
    .replace(/\bGMT\b/, "UTC");
}

function card(
  schedule: ScheduleView,
  names: Names,
  timeZone: string,
  showError: ShowError,
): HTMLElement {
  const item = h("li", {
    class: "card schedule",
    "data-testid": "schedule",
    "data-schedule-id": schedule.id,
    "data-state": schedule.state,
  });
  const status = h("p", { class: "notice", role: "status" });
  const fill = (current: ScheduleView, said?: string) => {
    const name = current.recipientName || phone(current.phone);
    const amount = money(current.amount);
    const actions = h("div", { class: "actions" });
    const buttons: HTMLButtonElement[] = [];
    const send = async (change: Change) => {
      for (const button of buttons) button.disabled = true;
      status.textContent = t("schedules.working");
      try {
        const answer = await postJson<{ outcome: string; schedule: ScheduleView }>(
          `schedules/${encodeURIComponent(current.id)}/${change}`,
          {},
        );
        const asked = answer.outcome === "approval_requested";
        fill(answer.schedule, t(asked ? "schedules.resume_approval" : DONE[change]));
      } catch (error) {
        if (error instanceof ApiError && error.code === "already" && error.body.schedule) {
          fill(error.body.schedule as ScheduleView, t("schedules.already"));
          return;
        }
        if (error instanceof ApiError && error.code === "no_runs") {
          status.textContent = t("schedules.no_runs");
        } else if (error instanceof ApiError && error.code === "paused_by_staff") {
          status.textContent = t("schedules.paused_by_staff");
        } else if (error instanceof ApiError && error.status === 403) {
          status.textContent = t("schedules.forbidden");
        } else {
          showError(error, status);
        }
        for (const button of buttons) button.disabled = false;
      }
    };
    const button = (change: Change, danger = false) => {
      const element = h(
        "button",
        {
          type: "button",
          class: danger ? "danger" : undefined,
          "data-action": change,
          "aria-label": t(`schedules.${change}_label`, { amount, name }),
        },
        t(`schedules.${change}`),
      );
      buttons.push(element);
      return element;
    };
    if (current.mayChange && current.state !== "deleted") {
      if (current.state === "active") {
        const pause = button("pause");
        pause.addEventListener("click", () => void send("pause"));
        actions.append(pause);
      }
      if (current.state === "paused") {
        const resume = button("resume");
        resume.addEventListener("click", () => void send("resume"));
        actions.append(resume);
      }
      if (["active", "paused", "finished"].includes(current.state)) {
        const remove = button("delete", true);
        remove.addEventListener("click", () =>
          askFirst(
            actions,
            t("schedules.delete_question"),
            {
              label: t("schedules.delete_yes"),
              ariaLabel: t("schedules.delete_label", { amount, name }),
            },
            t("schedules.keep"),
            () => void send("delete"),
          ),
        );
        actions.append(remove);
      }
    }
    const runs = current.nextRuns;
    item.dataset.state = current.state;
    clear(
      item,
      h(
        "div",
        { class: "approval-head" },
        h(
          "span",
          { class: "row-main" },
          name,
          current.aliases.length > 0 &&
            h("small", {}, t("schedules.aliases", { aliases: current.aliases.join(", ") })),
          h("small", {}, `${phone(current.phone)} · ${t(`operator.${current.operator}`)}`),
        ),
        h(
          "span",
          { class: "row-side" },
          h("span", { class: "row-amount big" }, amount),
          h("small", { class: "muted" }, t("schedules.per_run")),
        ),
      ),
      h(
        "p",
        { class: "plan" },
        h(
          "span",
          { class: `badge ${BADGE[current.state]}` },
          t(`schedules.state.${current.state}`),
        ),
        " ",
        planText(current.recurrence),
      ),
      runs.length > 0 &&
        h(
          "p",
          { class: "muted" },
          t(runs.length > 1 ? "schedules.next_runs" : "schedules.next_run"),
          h("br"),
          ...runs.flatMap((ms, index) => [index > 0 ? h("br") : null, runTime(ms, timeZone)]),
        ),
      current.pausedBecause === "owner_not_allowed" &&
        h("p", { class: "notice" }, t("schedules.paused_owner")),
      current.pausedBecause === "staff" &&
        current.state === "paused" &&
        h("p", { class: "notice" }, t("schedules.paused_staff")),
      current.note && h("p", {}, current.note),
      h(
        "p",
        { class: "muted" },
        t("schedules.owner", {
          name: names[String(current.ownerId)] ?? String(current.ownerId),
          runs: current.runCount,
        }),
      ),
      actions.childElementCount > 0 && actions,
      status,
    );
    status.textContent = said ?? "";
  };
  fill(schedule);
  return item;
}

export async function renderSchedules(root: HTMLElement, showError: ShowError): Promise<void> {
  const answer = await getJson<SchedulesAnswer>("schedules");
  if (answer.items.length === 0) {
    root.replaceChildren(h("p", { class: "muted card" }, t("schedules.empty")));
    return;
  }
  const filter = h(
    "select",
    { id: "schedule-filter" },
    ...FILTERS.map((value) =>
      h("option", { value }, value === "" ? t("schedules.all") : t(`schedules.state.${value}`)),
    ),
  );
  const cards = answer.items.map((schedule) =>
    card(schedule, answer.names, answer.timeZone, showError),
  );
  const list = h("ul", { class: "plain", "data-testid": "schedules" }, ...cards);
  const none = h("p", { class: "muted card", hidden: true }, t("schedules.none_match"));
  filter.addEventListener("change", () => {
    let shown = 0;
    for (const element of cards) {
      const visible = filter.value === "" || element.dataset.state === filter.value;
      element.hidden = !visible;
      if (visible) shown += 1;
    }
    none.hidden = shown > 0;
  });
  root.replaceChildren(
    h(
      "div",
      { class: "field inline bare" },
      h("label", { for: "schedule-filter" }, t("schedules.show")),
      filter,
    ),
    h("p", { class: "muted tz" }, t("schedules.time_zone", { zone: answer.timeZone })),
    list,
    none,
  );
}
