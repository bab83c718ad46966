/**
 * A second step before something that cannot be undone (Delete a schedule, Forget a
 * recipient): the first press shows the question with Yes and Keep in place of the buttons;
 * Yes runs the action, Keep puts the buttons back. Focus moves with it, for the keyboard.
 */
import { h } from "./dom.js";

export function askFirst(
  actions: HTMLElement,
  question: string,
  yes: { label: string; ariaLabel: string },
  keepLabel: string,
  onYes: () => void,
): void {
  const before = [...actions.childNodes];
  const yesButton = h(
    "button",
    { type: "button", class: "danger", "aria-label": yes.ariaLabel, "data-action": "yes" },
    yes.label,
  );
  const keep = h("button", { type: "button", class: "secondary" }, keepLabel);
  const restore = () => {
    actions.replaceChildren(...before);
    (before.find((node) => node instanceof HTMLButtonElement) as HTMLElement | undefined)?.focus();
  };
  yesButton.addEventListener("click", () => {
    yesButton.disabled = true;
    keep.disabled = true;
    onYes();
  });
  keep.addEventListener("click", restore);
  actions.replaceChildren(h("p", { class: "question", role: "alert" }, question), yesButton, keep);
  yesButton.focus();
}
