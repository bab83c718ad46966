/**
 * Hostile and mistaken input to /pay: HTML, very long text, other scripts' digits,
 * negative, huge and decimal amounts. Each gets a clear reply in valid Telegram HTML (the
 * emulator refuses bad markup), and invalid input reaches no Payment API endpoint at all.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { isNewReplyIn, isPromptIn, sendAndWait } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID } from "../../support/harness.js";

const USERINFO = /^\/data\/userinfo\//;

const isPrompt = isPromptIn(PAYER_ID);

const newReply = isNewReplyIn(PAYER_ID);

describe("hostile input to /pay, end to end", () => {
  const h = harnessPerTest();

  async function reply(text: string, until: (m: SentMessage) => boolean = newReply) {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    return sendAndWait(h.emulator, payer, text, until);
  }

  function expectNothingAsked(): void {
    expect(h.sandbox.countRequests({ method: "GET", path: USERINFO })).toBe(0);
    expect(h.sandbox.countRequests({ method: "POST" })).toBe(0);
  }

  it.each([
    ["unicode digits in the number", "/pay ٦٧٠٠٠٠٠٠١ 5000", "That is not a phone number"],
    ["HTML as the number", "/pay <b>670000001</b> 5000", "That is not a phone number"],
    ["a negative amount", "/pay 670000001 -5000", "The amount cannot be negative."],
    ["a huge amount", "/pay 670000001 999999999", "over the limit of 5,000,000 FCFA"],
    ["a decimal amount", "/pay 670000001 5000.50", "FCFA amounts are whole numbers"],
    ["a decimal comma", "/pay 670000001 12,5", "FCFA amounts are whole numbers"],
    ["a zero amount", "/pay 670000001 0", "The amount must be more than zero."],
    ["an exponent", "/pay 670000001 1e9", "That is not an amount"],
    ["unicode digits in the amount", "/pay 670000001 ٥٠٠٠", "That is not an amount"],
    ["a foreign number", "/pay +33 6 12 34 56 78 5000", "Only Cameroonian numbers"],
  ])("answers %s clearly and asks the API nothing", async (_case, text, problem) => {
    const answer = await reply(text);

    const shown = plainText(answer);
    expect(shown).toContain(problem);
    expect(shown).toContain("Example: /pay 670000001 5000 delivery");
    expect(answer.parseMode).toBe("HTML");
    expect(answer.replyMarkup ?? []).toHaveLength(0);
    expectNothingAsked();
    const stored = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 5 });
    expect(stored.total).toBe(0);
  });

  it("answers a 4000-character /pay without echoing it and asks the API nothing", async () => {
    const answer = await reply(`/pay ${"<&>".repeat(1332)}`);

    expect(plainText(answer)).toContain("That is not a phone number");
    expect(answer.text.length).toBeLessThan(500);
    expectNothingAsked();
  });

  it("answers 4000 characters of stray text with the help pointer", async () => {
    const answer = await reply("x".repeat(4000));

    expect(plainText(answer)).toBe("I did not understand that. /help lists what I can do.");
    expectNothingAsked();
  });

  it("refuses hostile answers inside the dialog and asks the API nothing", async () => {
    await reply("/pay");
    const longPhone = await reply("9".repeat(4000));
    expect(plainText(longPhone)).toContain("Only Cameroonian numbers");
    const unicode = await reply("٦٧٠٠٠٠٠٠١");
    expect(plainText(unicode)).toContain("That is not a phone number");
    await reply("670000001");
    const negative = await reply("-5000");
    expect(plainText(negative)).toContain("cannot be negative");
    const huge = await reply("999 999 999");
    expect(plainText(huge)).toContain("over the limit");
    const longAmount = await reply("5".repeat(4000));
    expect(plainText(longAmount)).toContain("That is not an amount");
    const html = await reply("<script>alert(1)</script>");
    expect(plainText(html)).toContain("That is not an amount");
    expectNothingAsked();
  });

  it("shows HTML in the note as text, escaped, in a prompt Telegram accepts", async () => {
    const prompt = await reply('/pay 670000001 5000 <b>x</b>& "quoted" <a href=x>', isPrompt);

    expect(prompt.parseMode).toBe("HTML");
    expect(plainText(prompt)).toContain('Note: <b>x</b>& "quoted" <a href=x>');
    expect(prompt.text).toContain("&lt;b&gt;x&lt;/b&gt;&amp;");
    expect(prompt.text).not.toContain("<a href");
    expect(h.emulator.countCalls("sendMessage")).toBe(1);
    expect(h.sandbox.countRequests({ method: "POST" })).toBe(0);
  });

  it("shortens a 4000-character note to 140 characters in the prompt", async () => {
    const prompt = await reply(`/pay 670000001 5000 ${"é&<".repeat(1330)}`, isPrompt);

    const note = /Note: (.*)/.exec(plainText(prompt))?.[1] ?? "";
    expect(note).toHaveLength(140);
    expect(note.endsWith("…")).toBe(true);
    expect(note.startsWith("é&<é&<")).toBe(true);
    expect(prompt.text.length).toBeLessThan(4096);
    expect(h.sandbox.countRequests({ method: "POST" })).toBe(0);
  });
});
