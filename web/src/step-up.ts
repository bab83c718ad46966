/**
 * The step-up page: a big payout's, batch's or schedule's Confirm (its initiator) or
 * Approve (an approver), with the PIN. Opened from the chat's "Confirm with PIN" button
 * (`?step_up=confirm.ID`, `schedule-confirm.ID`…). It shows the prompt's facts, sets the PIN on first use (typed twice), then asks for it;
 * the server checks it and runs the chat button's own step. The PIN is sent once per try
 * and never kept: the field is emptied after every answer.
 */
import { ApiError, getJson, postJson } from "./api.js";
import { clear, h } from "./dom.js";
import { clock, type Key, money, phone, t, when } from "./i18n.js";
import { haptic, type MainAction, mainAction } from "./telegram.js";

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

/**
 * A 6-digit PIN as six boxes: one real field (numeric keypad, the phone's one-time-code
 * suggestion, a paste of 6 digits fills all) under six boxes that mirror it, masked.
 */
function pinInput(id: string, label: Key): [HTMLLabelElement, HTMLInputElement, HTMLElement] {
  const input = h("input", {
    id,
    type: "text",
    inputmode: "numeric",
    pattern: "[0-9]{6}",
    maxlength: 6,
    minlength: 6,
    autocomplete: "one-time-code",
    enterkeyhint: "done",
    spellcheck: "false",
    required: true,
    class: "pin-field",
    "data-testid": id,
  });
  const boxes = Array.from({ length: 6 }, () =>
    h("span", { class: "pin-box", "aria-hidden": "true" }),
  );
  const show = () => {
    const digits = input.value.replace(/\D/g, "").slice(0, 6);
    if (digits !== input.value) input.value = digits;
    boxes.forEach((box, index) => {
      box.textContent = index < digits.length ? "•" : "";
      box.classList.toggle("filled", index < digits.length);
      box.classList.toggle(
        "current",
        document.activeElement === input && index === Math.min(digits.length, 5),
      );
    });
  };
  for (const event of ["input", "focus", "blur", "change"]) input.addEventListener(event, show);
  const wrap = h("div", { class: "pin-boxes" }, ...boxes, input);
  wrap.addEventListener("click", () => input.focus());
  show();
  return [h("label", { for: id, class: "pin-label" }, t(label)), input, wrap];
}

/** Empties a PIN field and its boxes. */
function emptyPin(input: HTMLInputElement): void {
  input.value = "";
  input.dispatchEvent(new Event("input"));
}

function status(text: string, kind: "error" | "ok" = "error"): HTMLElement {
  return h(
    "p",
    {
      class: `notice ${kind === "error" ? "error" : "ok"}`,
      role: "alert",
      "data-testid": "step-up-status",
    },
    text,
  );
}

/** A final state of the page (done, expired, already decided, locked): a big sign and words. */
function finalState(kind: "done" | "expired" | "decided" | "locked", text: string): HTMLElement {
  // Signs every font has (a phone without colour emoji would show a blank box).
  const sign = { done: "✓", expired: "!", decided: "✓", locked: "!" }[kind];
  return h(
    "div",
    {
      class: `state state-${kind}`,
      role: "alert",
      "data-testid": "step-up-state",
      "data-state": kind,
    },
    h("span", { class: "state-sign", "aria-hidden": "true" }, sign),
    h("p", {}, text),
  );
}

/** The API's refusals of a step-up, in words (never an HTTP code). */
const REFUSED: Record<string, { kind: "expired" | "decided" | "error"; key: Key }> = {
  expired: { kind: "expired", key: "stepup.state_expired" },
  not_found: { kind: "expired", key: "stepup.state_gone" },
  already: { kind: "decided", key: "stepup.state_decided" },
  over_limit: { kind: "error", key: "stepup.over_limit" },
  no_runs: { kind: "error", key: "stepup.no_runs" },
  too_new: { kind: "error", key: "stepup.too_new" },
  forbidden: { kind: "error", key: "error.role" },
  already_signed: { kind: "decided", key: "stepup.already_signed" },
};

/** The page when its item cannot be read: an expired or decided link says so, in words. */
export function stepUpGone(
  root: HTMLElement,
  error: unknown,
  explain: (error: unknown) => string,
): void {
  const gone = error instanceof ApiError && error.status === 404;
  clear(
    root,
    h(
      "section",
      { class: "card step-up", "data-testid": "step-up" },
      gone ? finalState("expired", t("stepup.state_gone")) : finalState("expired", explain(error)),
    ),
  );
  haptic("error");
}

export async function renderStepUp(
  root: HTMLElement,
  target: StepUpTarget,
  explain: (error: unknown) => string,
): Promise<void> {
  let item: Item;
  try {
    item = await getJson<Item>(`step-up/${target.action}/${encodeURIComponent(target.id)}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) throw error;
    stepUpGone(root, error, explain);
    return;
  }
  const { payout, batch, schedule } = item;
  const pair = (label: Key, value: string, testid?: string) => [
    h("dt", {}, t(label)),
    h("dd", testid ? { "data-testid": testid } : {}, value),
  ];
  // The header: who is paid, how much, on which network; the rest as facts below.
  const amount = payout?.amount ?? schedule?.amount ?? batch?.totalXaf ?? 0;
  const operator = payout?.operator ?? schedule?.operator;
  const number = payout?.phone ?? schedule?.phone;
  const head = h(
    "div",
    { class: "pay-head" },
    h(
      "p",
      { class: "pay-to" },
      payout?.recipientName ?? schedule?.recipientName ?? batch?.fileName ?? "",
    ),
    h("p", { class: "pay-amount", "data-testid": "step-up-amount" }, money(amount)),
    h(
      "p",
      { class: "pay-meta" },
      // The operator as the prompt names it ("MTN MoMo", "Orange Money").
      operator
        ? h("span", { class: `op op-${/orange/i.test(operator) ? "orange" : "mtn"}` }, operator)
        : null,
      number ? h("span", {}, phone(number)) : null,
      batch ? h("span", {}, t("stepup.rows_count", { n: batch.rows })) : null,
      schedule ? h("span", {}, t("stepup.amount_each")) : null,
    ),
  );
  const facts = h(
    "dl",
    { class: "facts" },
    ...(payout?.note ? pair("detail.note", payout.note) : []),
    ...(schedule
      ? [
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
    ...(batch ? pair("stepup.file", batch.fileName) : []),
  );
  const expiresAtMs = payout?.expiresAtMs ?? batch?.expiresAtMs ?? schedule?.expiresAtMs;
  const area = h("div", { class: "pin-area", "aria-live": "polite" });
  const confirming = target.action.endsWith("confirm");
  const what = batch ? "batch_" : schedule ? "schedule_" : "";
  const title = `stepup.title_${what}${confirming ? "confirm" : "approve"}` as Key;
  clear(
    root,
    h(
      "section",
      { class: "card step-up", "data-testid": "step-up" },
      h("h1", {}, t(title)),
      head,
      facts.childElementCount > 0 ? facts : null,
      expiresAtMs !== undefined
        ? h("p", { class: "muted expires" }, t("stepup.expires", { time: when(expiresAtMs) }))
        : null,
      area,
    ),
  );

  let main: MainAction | null = null;
  const end = (node: HTMLElement) => {
    main?.hide();
    main = null;
    clear(area, node);
  };
  const locked = (untilMs: number) => {
    end(finalState("locked", t("stepup.locked", { time: clock(untilMs) })));
    haptic("error");
  };

  // Set once the server said the payout repeats an earlier one: the next try approves anyway.
  let duplicateSeenAtMs: number | undefined;

  /** A form whose one action is Telegram's Main button inside Telegram, its own button elsewhere. */
  const actionForm = (
    testid: string,
    label: string,
    fields: HTMLElement[],
    ready: () => boolean,
    send: () => void,
  ): HTMLFormElement => {
    main = mainAction(label, () => {
      if (ready()) send();
      else haptic("warning");
    });
    const submit = main ? null : h("button", { type: "submit", class: "primary wide" }, label);
    const form = h("form", { class: "pin-form", "data-testid": testid }, ...fields, submit);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (ready()) send();
    });
    return form;
  };
  const busy = (on: boolean, submit: HTMLButtonElement | null) => {
    main?.busy(on);
    if (submit) submit.disabled = on;
  };

  const askPin = (note?: HTMLElement) => {
    const [label, input, boxes] = pinInput("pin", "stepup.pin");
    const text = t(confirming ? "stepup.confirm" : "stepup.approve");
    const form = actionForm(
      "pin-form",
      text,
      [label, boxes],
      () => input.value.length === 6,
      () => {
        const pin = input.value;
        emptyPin(input);
        const submit = form.querySelector("button");
        busy(true, submit);
        const body = duplicateSeenAtMs === undefined ? { pin } : { pin, duplicateSeenAtMs };
        postJson<{ outcome: string }>(
          `step-up/${target.action}/${encodeURIComponent(target.id)}`,
          body,
        )
          .then((done) => {
            const key: Key =
              done.outcome === "approval_requested"
                ? "stepup.approval_requested"
                : done.outcome === "signed"
                  ? "stepup.signed"
                  : schedule || done.outcome === "scheduled"
                    ? "stepup.schedule_active"
                    : batch
                      ? "stepup.batch_started"
                      : "stepup.sent";
            end(finalState("done", t(key)));
            haptic("success");
          })
          .catch((error: unknown) => {
            busy(false, submit);
            if (error instanceof ApiError && error.code === "wrong_pin") {
              haptic("error");
              askPin(status(t("stepup.wrong", { left: Number(error.body.left ?? 0) })));
              return;
            }
            if (error instanceof ApiError && error.code === "pin_locked") {
              locked(Number(error.body.untilMs ?? Date.now()));
              return;
            }
            if (error instanceof ApiError && error.code === "duplicate") {
              haptic("warning");
              duplicateSeenAtMs = Number(error.body.duplicateSeenAtMs);
              askPin(status(t("stepup.duplicate", { time: when(duplicateSeenAtMs) })));
              return;
            }
            if (error instanceof ApiError && error.code === "pin_not_set") {
              setPin();
              return;
            }
            haptic("error");
            const refused = error instanceof ApiError ? REFUSED[error.code] : undefined;
            if (refused && refused.kind !== "error") end(finalState(refused.kind, t(refused.key)));
            else askPin(status(refused ? t(refused.key) : explain(error)));
          });
      },
    );
    clear(area, note ?? null, form);
    input.focus();
  };

  const setPin = (note?: HTMLElement) => {
    const [label, first, firstBoxes] = pinInput("new-pin", "stepup.new_pin");
    const [againLabel, again, againBoxes] = pinInput("new-pin-again", "stepup.new_pin_again");
    // The first PIN complete, the second field takes over.
    first.addEventListener("input", () => {
      if (first.value.length === 6 && again.value === "") again.focus();
    });
    const form = actionForm(
      "set-pin-form",
      t("stepup.set"),
      [h("p", {}, t("stepup.set_intro")), label, firstBoxes, againLabel, againBoxes],
      () => first.value.length === 6 && again.value.length === 6,
      () => {
        const body = { pin: first.value, repeat: again.value };
        emptyPin(first);
        emptyPin(again);
        const submit = form.querySelector("button");
        busy(true, submit);
        postJson("step-up/pin", body)
          .then(() => {
            haptic("success");
            askPin(status(t("stepup.pin_set"), "ok"));
          })
          .catch((error: unknown) => {
            busy(false, submit);
            if (error instanceof ApiError && error.code === "already_set") return askPin();
            haptic("error");
            // A reset keeps a lock: the new PIN waits for its end.
            if (error instanceof ApiError && error.code === "pin_locked") {
              return locked(Number(error.body.untilMs ?? Date.now()));
            }
            const known =
              error instanceof ApiError && ["mismatch", "malformed"].includes(error.code);
            setPin(status(known ? t(`stepup.${(error as ApiError).code}` as Key) : explain(error)));
          });
      },
    );
    clear(area, note ?? null, form);
    first.focus();
  };

  if (item.pin.state === "locked") locked(item.pin.untilMs ?? Date.now());
  else if (item.pin.state === "none") setPin();
  else askPin();
}
