/**
 * The step-up page: a big payout's, batch's or schedule's Confirm (its initiator) or
 * Approve (an approver), with the PIN. Opened from the chat's "Confirm with PIN" button
 * (`?step_up=confirm.ID`, `schedule-confirm.ID`…). It shows the prompt's facts, sets the PIN on first use (typed twice), then asks for it;
 * the server checks it and runs the chat button's own step. The PIN is sent once per try
 * and never kept: the field is emptied after every answer.
 */
import { ApiError, getJson, postJson } from "./api.js";
import { clear, h } from "./dom.js";
import { type Key, money, t, when } from "./i18n.js";

const ACTIONS = [
  "confirm",
  "approve",
  "batch-confirm",
  "batch-approve",
  "schedule-confirm",
  "schedule-approve",
] as const;

export interface StepUpTarget {
  action: (typeof ACTIONS)[number];
  id: string;
}

/** A schedule as its prompt showed it: the plan and the next runs already in words. */
interface Schedule {
  id: string;
  recipientName: string;
  phone?: string;
  operator?: string;
  amount: number;
  note?: string;
  plan: string;
  nextRuns: string[];
  expiresAtMs: number;
}

interface Batch {
  id: string;
  fileName: string;
  rows: number;
  totalXaf: number;
  expiresAtMs?: number;
}

interface Item {
  batch?: Batch;
  schedule?: Schedule;
  payout?: {
    id: string;
    kind: "disbursement" | "collection";
    amount: number;
    recipientName: string;
    phone: string;
    operator: string;
    note?: string;
    expiresAtMs: number;
  };
  pin: { state: "none" | "set" | "locked"; untilMs?: number };
}

/** The payout the page was opened on (`step_up=confirm.ID` in the query), or null. */
export function stepUpTarget(): StepUpTarget | null {
  const match = /^([a-z-]+)\.([\w-]{4,40})$/.exec(
    new URLSearchParams(location.search).get("step_up") ?? "",
  );
  const action = ACTIONS.find((known) => known === match?.[1]);
  return action === undefined ? null : { action, id: match?.[2] ?? "" };
}

function pinInput(id: string, label: Key): [HTMLLabelElement, HTMLInputElement] {
  const input = h("input", {
    id,
    type: "password",
    inputmode: "numeric",
    pattern: "[0-9]{6}",
    maxlength: 6,
    minlength: 6,
    autocomplete: "off",
    required: true,
    "data-testid": id,
  });
  return [h("label", { for: id }, t(label)), input];
}

function status(text: string, kind: "error" | "ok" = "error"): HTMLElement {
  return h(
    "p",
    { class: kind === "error" ? "error" : "ok", role: "alert", "data-testid": "step-up-status" },
    text,
  );
}

export async function renderStepUp(
  root: HTMLElement,
  target: StepUpTarget,
  explain: (error: unknown) => string,
): Promise<void> {
  const item = await getJson<Item>(`step-up/${target.action}/${encodeURIComponent(target.id)}`);
  const { payout, batch, schedule } = item;
  const pair = (label: Key, value: string, testid?: string) => [
    h("dt", {}, t(label)),
    h("dd", testid ? { "data-testid": testid } : {}, value),
  ];
  const facts = h(
    "dl",
    { class: "facts" },
    ...(payout
      ? [
          ...pair("detail.recipient", payout.recipientName),
          ...pair("detail.number", payout.phone),
          ...pair("detail.operator", payout.operator),
          ...pair("detail.amount", money(payout.amount), "step-up-amount"),
          ...(payout.note ? pair("detail.note", payout.note) : []),
        ]
      : []),
    ...(schedule
      ? [
          ...pair("detail.recipient", schedule.recipientName),
          ...(schedule.phone ? pair("detail.number", schedule.phone) : []),
          ...(schedule.operator ? pair("detail.operator", schedule.operator) : []),
          ...pair("stepup.amount_each", money(schedule.amount), "step-up-amount"),
          ...(schedule.note ? pair("detail.note", schedule.note) : []),
          ...pair("stepup.plan", schedule.plan, "step-up-plan"),
          h("dt", {}, t("stepup.next_runs")),
          h(
            "dd",
            {},
            h(
              "ul",
              { "data-testid": "step-up-runs" },
              ...schedule.nextRuns.map((run) => h("li", {}, run)),
            ),
          ),
        ]
      : []),
    ...(batch
      ? [
          ...pair("stepup.file", batch.fileName),
          ...pair("stepup.rows", String(batch.rows)),
          ...pair("detail.amount", money(batch.totalXaf), "step-up-amount"),
        ]
      : []),
  );
  const expiresAtMs = payout?.expiresAtMs ?? batch?.expiresAtMs ?? schedule?.expiresAtMs;
  const area = h("div", { "aria-live": "polite" });
  const confirming = target.action.endsWith("confirm");
  const what = batch ? "batch_" : schedule ? "schedule_" : "";
  const title = `stepup.title_${what}${confirming ? "confirm" : "approve"}` as Key;
  clear(
    root,
    h(
      "section",
      { class: "card", "data-testid": "step-up" },
      h("h1", {}, t(title)),
      facts,
      expiresAtMs !== undefined
        ? h("p", { class: "muted" }, t("stepup.expires", { time: when(expiresAtMs) }))
        : null,
      area,
    ),
  );

  const locked = (untilMs: number) =>
    clear(area, status(t("stepup.locked", { time: when(untilMs) })));

  // Set once the server said the payout repeats an earlier one: the next try approves anyway.
  let duplicateSeenAtMs: number | undefined;

  const askPin = (note?: HTMLElement) => {
    const [label, input] = pinInput("pin", "stepup.pin");
    const submit = h(
      "button",
      { type: "submit" },
      t(confirming ? "stepup.confirm" : "stepup.approve"),
    );
    const form = h("form", { class: "pin-form", "data-testid": "pin-form" }, label, input, submit);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const pin = input.value;
      input.value = "";
      submit.disabled = true;
      const body = duplicateSeenAtMs === undefined ? { pin } : { pin, duplicateSeenAtMs };
      postJson<{ outcome: string }>(
        `step-up/${target.action}/${encodeURIComponent(target.id)}`,
        body,
      )
        .then((done) => {
          const key: Key =
            done.outcome === "approval_requested"
              ? "stepup.approval_requested"
              : schedule || done.outcome === "scheduled"
                ? "stepup.schedule_active"
                : batch
                  ? "stepup.batch_started"
                  : "stepup.sent";
          clear(area, status(t(key), "ok"));
        })
        .catch((error: unknown) => {
          submit.disabled = false;
          if (error instanceof ApiError && error.code === "wrong_pin") {
            askPin(status(t("stepup.wrong", { left: Number(error.body.left ?? 0) })));
            return;
          }
          if (error instanceof ApiError && error.code === "pin_locked") {
            locked(Number(error.body.untilMs ?? Date.now()));
            return;
          }
          if (error instanceof ApiError && error.code === "duplicate") {
            duplicateSeenAtMs = Number(error.body.duplicateSeenAtMs);
            askPin(status(t("stepup.duplicate", { time: when(duplicateSeenAtMs) })));
            return;
          }
          if (error instanceof ApiError && error.code === "pin_not_set") {
            setPin();
            return;
          }
          clear(area, status(explain(error)));
        });
    });
    clear(area, note ?? null, form);
    input.focus();
  };

  const setPin = (note?: HTMLElement) => {
    const [label, first] = pinInput("new-pin", "stepup.new_pin");
    const [againLabel, again] = pinInput("new-pin-again", "stepup.new_pin_again");
    const submit = h("button", { type: "submit" }, t("stepup.set"));
    const form = h(
      "form",
      { class: "pin-form", "data-testid": "set-pin-form" },
      h("p", {}, t("stepup.set_intro")),
      label,
      first,
      againLabel,
      again,
      submit,
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const body = { pin: first.value, repeat: again.value };
      first.value = "";
      again.value = "";
      postJson("step-up/pin", body)
        .then(() => askPin(status(t("stepup.pin_set"), "ok")))
        .catch((error: unknown) => {
          if (error instanceof ApiError && error.code === "already_set") return askPin();
          // A reset keeps a lock: the new PIN waits for its end.
          if (error instanceof ApiError && error.code === "pin_locked") {
            return locked(Number(error.body.untilMs ?? Date.now()));
          }
          const known = error instanceof ApiError && ["mismatch", "malformed"].includes(error.code);
          setPin(status(known ? t(`stepup.${(error as ApiError).code}` as Key) : explain(error)));
        });
    });
    clear(area, note ?? null, form);
    first.focus();
  };

  if (item.pin.state === "locked") locked(item.pin.untilMs ?? Date.now());
  else if (item.pin.state === "none") setPin();
  else askPin();
}
