/**
 * /collect: the /pay flow for asking a customer to pay (POST /collect), end to end, with
 * collections disabled for the merchant and suspended at the operator.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { isNewReplyIn, isPromptIn, pressAndWait, sendAndWait } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID, VIEWER_ID } from "../../support/harness.js";

const USERINFO = /^\/data\/userinfo\//;

const isPrompt = isPromptIn(PAYER_ID);

describe("/collect, end to end", () => {
  const h = harnessPerTest();

  function payer() {
    return h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  }

  async function reply(text: string, until: (m: SentMessage) => boolean = isNewReplyIn(PAYER_ID)) {
    return sendAndWait(h.emulator, payer(), text, until);
  }

  async function confirmUntil(prompt: SentMessage, title: string): Promise<SentMessage> {
    return pressAndWait(h.emulator, payer(), prompt, title, { button: "✅ Confirm" });
  }

  it("asks the customer's number to pay after Confirm, with exactly one POST /collect", async () => {
    const prompt = await reply("/collect 690000001 12 500 invoice 12", isPrompt);

    const shown = plainText(prompt);
    expect(shown).toContain("Confirm this collection request");
    expect(shown).toContain("From: Aïcha Nkoulou");
    expect(shown).toContain("+237 690 00 00 01 (Orange Money)");
    expect(shown).toContain("12,500 FCFA");
    expect(shown).toContain("Note: invoice 12");
    expect(h.sandbox.countRequests({ method: "GET", path: "/data/userinfo/237690000001" })).toBe(1);
    expect(h.sandbox.countRequests({ method: "POST" })).toBe(0);

    const pending = await confirmUntil(prompt, "Pending");
    expect(pending.replyMarkup ?? []).toHaveLength(0);
    const posts = h.sandbox.requests.filter((r) => r.method === "POST");
    expect(posts.map((r) => [r.path, r.body])).toEqual([
      ["/collect", { amount: 12_500, phoneNumber: "237690000001" }],
    ]);

    const notice = await h.emulator.waitForMessage(
      (m) => isNewReplyIn(PAYER_ID)(m) && plainText(m).includes("Collected"),
    );
    expect(plainText(notice)).toContain("12,500 FCFA from Aïcha Nkoulou");
  });

  it("runs the same dialog when parts are missing", async () => {
    const ask = await reply("/collect");
    expect(plainText(ask)).toContain("Which number should pay?");
    await reply("670000001");
    const prompt = await reply("3k", isPrompt);
    expect(plainText(prompt)).toContain("Confirm this collection request");
    expect(plainText(prompt)).toContain("3,000 FCFA");

    await confirmUntil(prompt, "Pending");
    expect(h.sandbox.countRequests({ method: "POST", path: "/collect" })).toBe(1);
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
  });

  it("explains plainly that collections are disabled when the API answers 403", async () => {
    h.sandbox.setCollectionsEnabled(false);
    const prompt = await reply("/collect 670000001 5000", isPrompt);

    const refused = plainText(await confirmUntil(prompt, "Not accepted"));

    expect(refused).toContain("Collections are disabled for this merchant account");
    expect(refused).toContain("Ask the payment provider to enable collections.");
    expect(refused).toContain("Nothing was paid.");
    expect(h.sandbox.countRequests({ method: "POST", path: "/collect" })).toBe(1);
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 5 });
    expect(items.map((p) => [p.kind, p.state])).toEqual([["collection", "rejected_by_api"]]);
  });

  it("refuses when the operator is not taking collections, asking nothing else", async () => {
    h.sandbox.setAvailability("orange", "collection", "SUSPENDED");

    const answer = await reply("/collect 690000001 5000");

    expect(plainText(answer)).toContain("Orange Money is not accepting collections right now");
    expect(h.sandbox.countRequests({ method: "GET", path: USERINFO })).toBe(0);
    expect(h.sandbox.countRequests({ method: "POST" })).toBe(0);
  });

  it("explains bad input with the /collect example and asks the API nothing", async () => {
    const answer = await reply("/collect 670000001 -20");

    expect(plainText(answer)).toContain("The amount cannot be negative.");
    expect(plainText(answer)).toContain("Example: /collect 670000001 5000 invoice 12");
    expect(h.sandbox.countRequests({ method: "GET", path: USERINFO })).toBe(0);
    expect(h.sandbox.countRequests({ method: "POST" })).toBe(0);
  });

  it("refuses a viewer", async () => {
    const viewer = h.emulator.user({ id: VIEWER_ID, languageCode: "en" });
    const answer = h.emulator.waitForMessage(isNewReplyIn(VIEWER_ID));
    await viewer.sendText("/collect 670000001 5000");

    expect(plainText(await answer)).toContain("cannot make them");
    expect(h.sandbox.countRequests({ method: "GET", path: USERINFO })).toBe(0);
    expect(h.sandbox.countRequests({ method: "POST" })).toBe(0);
  });
});
