/**
 * /pay with missing parts: the bot asks for the number, then the amount, validating each
 * answer; /cancel leaves; the dialog lives in Redis, so it survives a restart; and many
 * updates of one chat arriving at once are answered in order.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type App, startApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config/index.js";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../../../src/logger.js";
import { isPromptIn, pressAndWait, sendAndWait } from "../../support/flows.js";
import { type Harness, PAYER_ID, startHarness } from "../../support/harness.js";

const USERINFO = /^\/data\/userinfo\//;

const isPrompt = isPromptIn(PAYER_ID);

/** A new (not edited) bot message in the payer's chat whose text contains `text`. */
const newReplyContaining = (text: string) => (message: SentMessage) =>
  message.chatId === PAYER_ID && message.editCount === 0 && plainText(message).includes(text);

describe("the /pay dialog, end to end", () => {
  let h: Harness;
  let restarted: App | undefined;

  beforeEach(async () => {
    h = await startHarness();
    restarted = undefined;
  });

  afterEach(async () => {
    await restarted?.stop();
    await h.close();
  });

  function payer() {
    return h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  }

  /** Sends `text` as the payer and resolves with the first bot message matching `until`. */
  async function say(text: string, until: (message: SentMessage) => boolean) {
    return sendAndWait(h.emulator, payer(), text, until);
  }

  /** Presses Confirm on `prompt`, waits for "Pending", and checks the one POST /disburse. */
  async function confirmAndExpectOneDisbursement(prompt: SentMessage): Promise<void> {
    await pressAndWait(h.emulator, payer(), prompt, "Pending", { button: "✅ Confirm" });
    const posts = h.sandbox.requests.filter((r) => r.method === "POST" && r.path === "/disburse");
    expect(posts.map((r) => r.body)).toEqual([{ amount: 5000, phoneNumber: "237670000001" }]);
  }

  it("asks for the number, explains a bad one, then asks the amount and shows the prompt", async () => {
    const askPhone = await say("/pay", newReplyContaining("Who should receive the money?"));
    expect(plainText(askPhone)).toContain("/cancel");

    const badPhone = await say("12345", newReplyContaining("9 digits"));
    expect(plainText(badPhone)).toContain("Try again, or /cancel to stop.");
    expect(badPhone.replyMarkup ?? []).toHaveLength(0);
    expect(await h.app.stores.sessions.getDialog(PAYER_ID)).toEqual({
      kind: "disbursement",
      step: "phone",
    });

    const askAmount = await say("+237 670 00 00 01", newReplyContaining("How much, in FCFA?"));
    expect(askAmount.replyMarkup ?? []).toHaveLength(0);
    expect(h.sandbox.countRequests({ method: "GET", path: USERINFO })).toBe(0);

    const prompt = await say("5k", isPrompt);
    const shown = plainText(prompt);
    expect(shown).toContain("Jean-Paul Mbarga");
    expect(shown).toContain("+237 670 00 00 01");
    expect(shown).toContain("5,000 FCFA");
    expect(h.sandbox.countRequests({ method: "GET", path: "/data/userinfo/237670000001" })).toBe(1);
    expect(await h.app.stores.sessions.getDialog(PAYER_ID)).toBeNull();

    await confirmAndExpectOneDisbursement(prompt);
  });

  it("explains a bad amount and keeps asking for one", async () => {
    await say("/pay", newReplyContaining("Who should receive"));
    await say("670000001", newReplyContaining("How much"));

    const decimal = await say("12.5", newReplyContaining("no decimals"));
    expect(plainText(decimal)).toContain("Try again, or /cancel to stop.");
    const words = await say("a lot", newReplyContaining("That is not an amount"));
    expect(plainText(words)).toContain("5k");
    expect(await h.app.stores.sessions.getDialog(PAYER_ID)).toEqual({
      kind: "disbursement",
      step: "amount",
      phone: "237670000001",
    });
    expect(h.sandbox.countRequests({ method: "GET", path: USERINFO })).toBe(0);

    const prompt = await say("7 500", isPrompt);
    expect(plainText(prompt)).toContain("7,500 FCFA");
  });

  it("asks only for the amount when /pay came with a number", async () => {
    const askAmount = await say("/pay +237 690 00 00 01", newReplyContaining("How much"));
    expect(askAmount.replyMarkup ?? []).toHaveLength(0);

    const prompt = await say("2 500", isPrompt);
    expect(plainText(prompt)).toContain("Aïcha Nkoulou");
    expect(plainText(prompt)).toContain("2,500 FCFA");
  });

  it("explains a bad number given alone without starting a dialog", async () => {
    const answer = await say("/pay 12", newReplyContaining("9 digits"));
    expect(plainText(answer)).toContain("Example: /pay 670000001 5000 delivery");
    expect(await h.app.stores.sessions.getDialog(PAYER_ID)).toBeNull();
    expect(h.sandbox.countRequests({ method: "GET", path: USERINFO })).toBe(0);
  });

  it("leaves the dialog on /cancel: nothing stored, nothing sent, later text is not an answer", async () => {
    await say("/pay", newReplyContaining("Who should receive"));
    await say("670000001", newReplyContaining("How much"));

    const cancelled = await say("/cancel", newReplyContaining("Cancelled"));
    expect(plainText(cancelled)).toBe("Cancelled. Nothing was done.");
    expect(await h.app.stores.sessions.getDialog(PAYER_ID)).toBeNull();

    const stray = await say("5000", newReplyContaining("did not understand"));
    expect(stray.replyMarkup ?? []).toHaveLength(0);
    const again = await say("/cancel", newReplyContaining("nothing to cancel"));
    expect(plainText(again)).toBe("There is nothing to cancel.");

    const stored = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 10 });
    expect(stored.total).toBe(0);
    expect(h.sandbox.countRequests({ method: "GET", path: USERINFO })).toBe(0);
    expect(h.sandbox.countRequests({ method: "POST" })).toBe(0);
  });

  it("finishes a dialog started before a restart of the bot", async () => {
    await say("/pay", newReplyContaining("Who should receive"));
    await say("670000001", newReplyContaining("How much"));

    await h.app.stop();
    restarted = await startApp({
      config: loadConfig(h.env, "start"),
      logger: silentLogger,
      pollTimeoutSeconds: 1,
      loopTickMs: 50,
    });

    const prompt = await say("5000 ", isPrompt);
    expect(plainText(prompt)).toContain("Jean-Paul Mbarga");
    expect(plainText(prompt)).toContain("5,000 FCFA");

    await confirmAndExpectOneDisbursement(prompt);
  });

  it("answers 30 messages sent at once in the order they were sent", async () => {
    // Each wrong answer has its own reply, so any reordering shows in the transcript.
    const wrong: Array<[answer: string, reply: string]> = [
      ["12345", "9 digits"],
      // Letters are an alias (a saved recipient's), and none is saved here.
      ["abc", "No saved recipient is called abc"],
      ["+33 612345678", "Only Cameroonian numbers"],
      ["600000000", "not a Cameroonian mobile number"],
      ["620000001", "Camtel numbers cannot be paid"],
    ];
    const answers = Array.from({ length: 27 }, (_, i) => wrong[i % wrong.length]).filter(
      (pair) => pair !== undefined,
    );
    const texts = ["/pay", ...answers.map(([answer]) => answer), "670000001", "5k"];
    expect(texts).toHaveLength(30);

    const prompt = h.emulator.waitForMessage(isPrompt, 15_000);
    const user = payer();
    await Promise.all(texts.map((text) => user.sendText(text)));
    await prompt;

    const transcript = h.emulator.messages(PAYER_ID).map((message) => plainText(message));
    const expected = [
      "Who should receive the money?",
      ...answers.map(([, reply]) => reply),
      "How much, in FCFA?",
      "Confirm this payout",
    ];
    expect(transcript).toHaveLength(expected.length);
    transcript.forEach((text, index) => {
      expect(text).toContain(expected[index]);
    });
    expect(transcript.at(-1)).toContain("5,000 FCFA");
    expect(h.sandbox.countRequests({ method: "GET", path: USERINFO })).toBe(1);
    expect(h.sandbox.countRequests({ method: "POST" })).toBe(0);
  });
});
