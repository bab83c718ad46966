/**
 * Saved recipients: the address book searched by alias or registered name, a page at a
 * time, each entry with its masked number and when it was last paid; Forget (after a
 * second step) for those the server says may (its saver, an admin), through /forget's step.
 */
import { ApiError, getJson, postJson } from "./api.js";
import { askFirst } from "./confirm.js";
import { clear, h } from "./dom.js";
import { t, when } from "./i18n.js";
import { pager } from "./pager.js";
import type { Names, RecipientsAnswer, RecipientView } from "./types.js";

type ShowError = (error: unknown, where: HTMLElement) => void;

const search = { q: "", page: 0 };

function entry(recipient: RecipientView, names: Names, showError: ShowError): HTMLElement {
  const status = h("p", { class: "notice", role: "status" });
  const actions = h("div", { class: "actions spaced" });
  const item = h(
    "li",
    { class: "recipient", "data-testid": "recipient", "data-alias": recipient.alias },
    h(
      "div",
      { class: "recipient-line" },
      h(
        "span",
        { class: "row-main" },
        h("strong", {}, recipient.alias),
        recipient.registeredName,
        h("small", {}, `${recipient.phone} · ${t(`operator.${recipient.operator}`)}`),
        h(
          "small",
          {},
          t("recipients.saved_by", {
            name: names[String(recipient.savedBy)] ?? String(recipient.savedBy),
            when: when(recipient.savedAtMs),
          }),
        ),
      ),
      h(
        "span",
        { class: "row-side" },
        h(
          "small",
          { class: "muted" },
          recipient.lastPaidAtMs === undefined
            ? t("recipients.never_paid")
            : t("recipients.last_paid", { when: when(recipient.lastPaidAtMs) }),
        ),
      ),
    ),
    recipient.mayForget && actions,
    status,
  );
  const forget = async () => {
    status.textContent = t("recipients.working");
    try {
      await postJson(`recipients/${encodeURIComponent(recipient.alias)}/forget`, {});
      status.textContent = t("recipients.forgotten", { alias: recipient.alias });
      item.classList.add("gone");
      actions.remove();
    } catch (error) {
      const known: Record<number, string> = {
        403: t("recipients.forbidden"),
        404: t("recipients.gone"),
        409: t("recipients.changed"),
      };
      if (error instanceof ApiError && known[error.status] !== undefined) {
        status.textContent = known[error.status] ?? "";
        actions.remove();
        return;
      }
      showError(error, status);
    }
  };
  const button = h(
    "button",
    {
      type: "button",
      class: "danger",
      "data-action": "forget",
      "aria-label": t("recipients.forget_label", { alias: recipient.alias }),
    },
    t("recipients.forget"),
  );
  button.addEventListener("click", () =>
    askFirst(
      actions,
      t("recipients.forget_question", { alias: recipient.alias }),
      {
        label: t("recipients.forget_yes"),
        ariaLabel: t("recipients.forget_label", { alias: recipient.alias }),
      },
      t("recipients.keep"),
      () => void forget(),
    ),
  );
  actions.append(button);
  return item;
}

export async function renderRecipients(root: HTMLElement, showError: ShowError): Promise<void> {
  const input = h("input", {
    id: "recipient-search",
    type: "search",
    placeholder: t("recipients.placeholder"),
    value: search.q,
    autocomplete: "off",
    enterkeyhint: "search",
  });
  const results = h("div", {
    class: "results",
    "aria-live": "polite",
    "aria-label": t("recipients.results"),
  });

  const load = async () => {
    clear(results, h("p", { class: "muted" }, t("app.loading")));
    try {
      const params = new URLSearchParams();
      if (search.q !== "") params.set("q", search.q);
      if (search.page > 0) params.set("page", String(search.page));
      const answer = await getJson<RecipientsAnswer>(`recipients?${params}`);
      search.page = answer.page;
      const bar = pager(answer, t("recipients.results"), (delta) => {
        search.page = Math.max(0, search.page + delta);
        void load();
      });
      clear(
        results,
        h(
          "p",
          { class: "muted", "data-testid": "recipients-count" },
          t("recipients.count", { count: answer.total }),
        ),
        answer.items.length === 0
          ? h(
              "p",
              { class: "muted card" },
              t(search.q === "" ? "recipients.empty" : "recipients.none_match"),
            )
          : h(
              "ul",
              { class: "list card" },
              ...answer.items.map((recipient) => entry(recipient, answer.names, showError)),
            ),
        bar,
      );
    } catch (error) {
      showError(error, results);
    }
  };

  const form = h(
    "form",
    { class: "card filters", role: "search" },
    h(
      "div",
      { class: "field" },
      h("label", { for: "recipient-search" }, t("recipients.search")),
      input,
    ),
    h("div", { class: "actions" }, h("button", { type: "submit" }, t("recipients.apply"))),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    search.q = input.value.trim();
    search.page = 0;
    void load();
  });
  root.replaceChildren(form, results);
  await load();
}
