/**
 * /pay typed in one line, the ways people write numbers and amounts: each from the
 * Telegram update to the prompt the payer reads and the one request the Payment API gets.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { pressAndWait, showPrompt } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID } from "../../support/harness.js";

const USERINFO = /^\/data\/userinfo\//;

describe("/pay in one line, end to end", () => {
  const h = harnessPerTest();

  /** Sends `text`, waits for the prompt, confirms it and returns both versions. */
  async function payAndConfirm(text: string) {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, text);
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
    const confirmed = await pressAndWait(h.emulator, payer, prompt, "Pending", {
      button: "✅ Confirm",
    });
    return { prompt, confirmed };
  }

  it.each([
    ["a national number and a grouped amount", "/pay 670000001 5 000"],
    ["an international number with spaces and a 5k amount", "/pay +237 670 00 00 01 5k"],
    ["the number with 237 and a plain amount", "/pay 237670000001 5000"],
  ])("reads %s as 5,000 FCFA to +237 670 00 00 01", async (_form, text) => {
    const { prompt, confirmed } = await payAndConfirm(text);

    const shown = plainText(prompt);
    expect(shown).toContain("Confirm this payout");
    expect(shown).toContain("Jean-Paul Mbarga");
    expect(shown).toContain("+237 670 00 00 01 (MTN MoMo)");
    expect(shown).toContain("5,000 FCFA");
    expect(shown).toMatch(/expires in \d+ min/);
    expect(shown).not.toContain("Note:");
    expect(h.sandbox.countRequests({ method: "GET", path: "/data/userinfo/237670000001" })).toBe(1);

    expect(confirmed.replyMarkup ?? []).toHaveLength(0);
    const posts = h.sandbox.requests.filter((r) => r.method === "POST" && r.path === "/disburse");
    expect(posts.map((r) => r.body)).toEqual([{ amount: 5000, phoneNumber: "237670000001" }]);
    const paymentId = h.sandbox.snapshot().payments[0]?.id ?? "missing";
    expect(plainText(confirmed)).toContain(`Payment id: ${paymentId}`);
  });

  it("shows the note after the amount escaped, and never sends it to the API", async () => {
    const { prompt } = await payAndConfirm("/pay 670000001 5000 <b>x</b>& rent");

    expect(prompt.parseMode).toBe("HTML");
    expect(prompt.text).toContain("&lt;b&gt;x&lt;/b&gt;&amp; rent");
    expect(prompt.text).not.toContain("<b>x</b>");
    expect(plainText(prompt)).toContain("Note: <b>x</b>& rent");
    expect(plainText(prompt)).toContain("5,000 FCFA");
    const post = h.sandbox.requests.find((r) => r.method === "POST" && r.path === "/disburse");
    expect(post?.body).toEqual({ amount: 5000, phoneNumber: "237670000001" });
  });

  it("takes an amount written with spaces before a note", async () => {
    const { prompt } = await payAndConfirm("/pay 670 00 00 01 25 000 transport Douala");

    expect(plainText(prompt)).toContain("25,000 FCFA");
    expect(plainText(prompt)).toContain("Note: transport Douala");
    const post = h.sandbox.requests.find((r) => r.method === "POST" && r.path === "/disburse");
    expect(post?.body).toEqual({ amount: 25_000, phoneNumber: "237670000001" });
  });

  it("asks the API for the name once per /pay and nothing else before Confirm", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 690000001 7500");

    expect(plainText(prompt)).toContain("Aïcha Nkoulou");
    expect(plainText(prompt)).toContain("(Orange Money)");
    expect(plainText(prompt)).toContain("7,500 FCFA");
    expect(h.sandbox.countRequests({ method: "GET", path: USERINFO })).toBe(1);
    expect(h.sandbox.countRequests({ method: "POST" })).toBe(0);
  });
});
