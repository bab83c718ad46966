/**
 * The Confirm / Cancel buttons of a /pay prompt: cancel, expiry, someone else's press, a
 * stranger's forged press, and twenty presses at once. Whatever happens, at most one
 * POST /disburse reaches the Payment API and every callback query is answered.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type App, startApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config/index.js";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../../../src/logger.js";
import { isPromptIn } from "../../support/flows.js";
import {
  ADMIN_ID,
  type Harness,
  PAYER_ID,
  STRANGER_ID,
  startHarness,
} from "../../support/harness.js";

const isPrompt = isPromptIn(PAYER_ID);

function callbackData(message: SentMessage, index: number): string {
  const data = message.replyMarkup?.flat()[index]?.callback_data;
  if (data === undefined) throw new Error(`message ${message.messageId} has no button #${index}`);
  return data;
}

function disburseCount(h: Harness): number {
  return h.sandbox.countRequests({ method: "POST", path: "/disburse" });
}

describe("the buttons of a /pay prompt, end to end", () => {
  let h: Harness;
  let restarted: App | undefined;

  afterEach(async () => {
    await restarted?.stop();
    await h.close();
  });

  /** The app that runs now (the restarted one, when a test restarted it). */
  function app(): App {
    return restarted ?? h.app;
  }

  function payer() {
    return h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  }

  async function promptFor(text: string): Promise<SentMessage> {
    const shown = h.emulator.waitForMessage(isPrompt);
    await payer().sendText(text);
    return shown;
  }

  describe("with the default configuration", () => {
    beforeEach(async () => {
      h = await startHarness();
      restarted = undefined;
    });

    it("cancels on Cancel and says a later Confirm was already handled, sending nothing", async () => {
      const prompt = await promptFor("/pay 670000001 5000");
      const confirmData = callbackData(prompt, 0);
      expect(confirmData).toMatch(/^c:[\w-]+$/);

      const cancelled = h.emulator.waitForMessage(
        (m) => m.messageId === prompt.messageId && plainText(m).includes("Cancelled"),
      );
      const cancelPress = await payer().pressButton(prompt, "✖️ Cancel");
      const afterCancel = await cancelled;
      expect(afterCancel.replyMarkup ?? []).toHaveLength(0);
      expect(plainText(afterCancel)).toContain("Nothing was paid.");
      expect((await h.emulator.waitForCallbackAnswer(cancelPress.callbackQueryId)).text).toBe(
        "Cancelled.",
      );

      const late = await payer().pressCallbackData(prompt.messageId, confirmData);
      const answer = await h.emulator.waitForCallbackAnswer(late.callbackQueryId);
      expect(answer.text).toBe("Already handled.");
      expect(plainText(h.emulator.message(PAYER_ID, prompt.messageId) ?? prompt)).toContain(
        "Cancelled",
      );
      expect(disburseCount(h)).toBe(0);
      const stored = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 5 });
      expect(stored.items.map((p) => p.state)).toEqual(["cancelled"]);
    });

    it.each([
      [
        "en",
        "Already cancelled: nothing was paid.",
        "Too late to cancel: it was already confirmed.",
      ],
      [
        "fr",
        "Déjà annulé\u202f: rien n’a été payé.",
        "Trop tard pour annuler\u202f: ce paiement est déjà confirmé.",
      ],
    ])(
      "answers a second Cancel, and a Cancel after Confirm, with what really happened (%s)",
      async (lang, again, confirmed) => {
        const person = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: lang });
        const shown = h.emulator.waitForMessage(isPrompt);
        await person.sendText("/pay 670000001 5000");
        const prompt = await shown;
        const cancelData = callbackData(prompt, 1);
        const first = await person.pressCallbackData(prompt.messageId, cancelData);
        await h.emulator.waitForCallbackAnswer(first.callbackQueryId);
        const second = await person.pressCallbackData(prompt.messageId, cancelData);
        expect((await h.emulator.waitForCallbackAnswer(second.callbackQueryId)).text).toBe(again);

        const next = h.emulator.waitForMessage(
          (m) => isPrompt(m) && m.messageId !== prompt.messageId,
        );
        await person.sendText("/pay 670000001 6000");
        const other = await next;
        await person.pressCallbackData(other.messageId, callbackData(other, 0));
        await waitForState(h, PAYER_ID, "success", 10_000).catch(() => undefined);
        const late = await person.pressCallbackData(other.messageId, callbackData(other, 1));
        expect((await h.emulator.waitForCallbackAnswer(late.callbackQueryId)).text).toBe(confirmed);
        expect(disburseCount(h)).toBe(1);
      },
    );

    it("refuses another staff member's press with an alert, and the payer can still confirm", async () => {
      const prompt = await promptFor("/pay 670000001 5000");
      const admin = h.emulator.user({ id: ADMIN_ID, languageCode: "en" });

      const forged = await admin.pressCallbackData(prompt.messageId, callbackData(prompt, 0));
      const refusal = await h.emulator.waitForCallbackAnswer(forged.callbackQueryId);
      expect(refusal.showAlert).toBe(true);
      expect(refusal.text).toContain("Only the person who started this payout");
      expect(disburseCount(h)).toBe(0);
      expect(h.emulator.message(PAYER_ID, prompt.messageId)?.editCount).toBe(0);

      const pending = h.emulator.waitForMessage(
        (m) => m.messageId === prompt.messageId && plainText(m).includes("Pending"),
      );
      await payer().pressButton(prompt, "✅ Confirm");
      await pending;
      expect(disburseCount(h)).toBe(1);
    });

    it("refuses a stranger's forged press with an alert that shows their id", async () => {
      const prompt = await promptFor("/pay 670000001 5000");
      const stranger = h.emulator.user({ id: STRANGER_ID, languageCode: "en" });

      const forged = await stranger.pressCallbackData(prompt.messageId, callbackData(prompt, 0));
      const refusal = await h.emulator.waitForCallbackAnswer(forged.callbackQueryId);
      expect(refusal.showAlert).toBe(true);
      expect(refusal.text).toContain(String(STRANGER_ID));
      const cancel = await stranger.pressCallbackData(prompt.messageId, callbackData(prompt, 1));
      expect((await h.emulator.waitForCallbackAnswer(cancel.callbackQueryId)).showAlert).toBe(true);

      expect(disburseCount(h)).toBe(0);
      expect(h.emulator.messages(STRANGER_ID)).toHaveLength(0);
      expect(h.emulator.message(PAYER_ID, prompt.messageId)?.editCount).toBe(0);
      const stored = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 5 });
      expect(stored.items.map((p) => p.state)).toEqual(["awaiting_confirmation"]);
    });

    it("leaves a prompt's buttons alone when a press carries data the prompt does not hold", async () => {
      const older = await promptFor("/pay 670000001 4000");
      const cancelled = h.emulator.waitForMessage(
        (m) => m.messageId === older.messageId && plainText(m).includes("Cancelled"),
      );
      await payer().pressButton(older, "✖️ Cancel");
      await cancelled;
      const prompt = await promptFor("/pay 670000001 5000");
      const admin = h.emulator.user({ id: ADMIN_ID, languageCode: "en" });
      const olderId = callbackData(older, 0).slice(2);

      const presses = [
        await payer().pressCallbackData(prompt.messageId, "c:forged-id"),
        await admin.pressCallbackData(prompt.messageId, "x:forged-id"),
        // A real payout's id, but not this prompt's: its state must not be shown here.
        await payer().pressCallbackData(prompt.messageId, `c:${olderId}`),
        await admin.pressCallbackData(prompt.messageId, `x:${olderId}`),
      ];
      const answers = await Promise.all(
        presses.map((press) => h.emulator.waitForCallbackAnswer(press.callbackQueryId)),
      );

      expect(answers.map((answer) => answer.text)).toEqual([
        "This button is no longer valid.",
        "This button is no longer valid.",
        "Already handled.",
        "Only the person who started this payout can confirm or cancel it.",
      ]);
      const now = h.emulator.message(PAYER_ID, prompt.messageId);
      expect(now?.editCount).toBe(0);
      expect(now?.replyMarkup?.flat().map((button) => button.callback_data)).toEqual([
        callbackData(prompt, 0),
        callbackData(prompt, 1),
      ]);
      const pending = h.emulator.waitForMessage(
        (m) => m.messageId === prompt.messageId && plainText(m).includes("Pending"),
      );
      await payer().pressButton(prompt, "✅ Confirm");
      await pending;
      expect(disburseCount(h)).toBe(1);
    });

    it("answers a person's presses over their limit politely, does nothing for them, and leaves others' presses alone", async () => {
      const prompt = await promptFor("/pay 670000001 5000");
      h.emulator.setMaxListeners(200);
      const forged = await Promise.all(
        Array.from({ length: 70 }, (_, i) =>
          payer().pressCallbackData(prompt.messageId, `c:forged-id-${i}`),
        ),
      );
      const forgedAnswers = await Promise.all(
        forged.map((press) => h.emulator.waitForCallbackAnswer(press.callbackQueryId)),
      );
      const real = await payer().pressButton(prompt, "✅ Confirm");
      const answers = [
        ...forgedAnswers,
        await h.emulator.waitForCallbackAnswer(real.callbackQueryId),
      ];

      const texts = answers.map((answer) => answer.text);
      const tooFast = "Too many button presses: wait a few seconds, then press again.";
      expect(texts.filter((text) => text === "This button is no longer valid.")).toHaveLength(60);
      expect(texts.filter((text) => text === tooFast)).toHaveLength(11);
      expect(answers.at(-1)).toMatchObject({ text: tooFast, showAlert: false });
      expect(disburseCount(h)).toBe(0);
      expect(h.emulator.message(PAYER_ID, prompt.messageId)?.editCount).toBe(0);
      const stored = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 5 });
      expect(stored.items.map((p) => p.state)).toEqual(["awaiting_confirmation"]);

      // Another person's presses count apart, and are answered in their language.
      const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "fr" });
      const adminPresses = await Promise.all(
        Array.from({ length: 61 }, () => admin.pressCallbackData(prompt.messageId, "c:forged-id")),
      );
      const adminAnswers = await Promise.all(
        adminPresses.map((press) => h.emulator.waitForCallbackAnswer(press.callbackQueryId)),
      );
      expect(adminAnswers.map((answer) => answer.text)).toContain(
        "Trop d’appuis sur les boutons : attendez quelques secondes, puis appuyez à nouveau.",
      );
      expect(adminAnswers.filter((a) => a.text === "Ce bouton n’est plus valide.")).toHaveLength(
        60,
      );
    });

    it("sends exactly one POST /disburse for 20 Confirm presses at once and answers them all", async () => {
      // 237670000003 stays pending at the sandbox, so the final state is stable.
      const prompt = await promptFor("/pay 670000003 5000");
      const user = payer();
      h.emulator.setMaxListeners(50);

      const presses = await Promise.all(
        Array.from({ length: 20 }, () => user.pressButton(prompt, 0)),
      );
      const answers = await Promise.all(
        presses.map((press) => h.emulator.waitForCallbackAnswer(press.callbackQueryId)),
      );
      expect(answers).toHaveLength(20);
      expect(answers.filter((answer) => answer.text === "Sending…")).toHaveLength(1);
      expect(answers.filter((answer) => answer.text === "Already handled.")).toHaveLength(19);

      const stored = await waitForState(h, PAYER_ID, "pending");
      expect(stored.paymentId).toBeDefined();
      expect(disburseCount(h)).toBe(1);
      const post = h.sandbox.requests.find((r) => r.method === "POST" && r.path === "/disburse");
      expect(post?.body).toEqual({ amount: 5000, phoneNumber: "237670000003" });
      expect(h.emulator.callbackAnswers).toHaveLength(20);

      // Stopping waits for every handler in flight: no late edit may put "Sending…" back.
      await h.app.stop();
      const final = h.emulator.message(PAYER_ID, prompt.messageId);
      expect(plainText(final ?? prompt)).toContain("Pending");
      expect(plainText(final ?? prompt)).toContain(`Payment id: ${stored.paymentId}`);
      expect(final?.replyMarkup ?? []).toHaveLength(0);
    });
  });

  describe("with a short confirmation TTL and a controllable clock", () => {
    let skewMs = 0;

    beforeEach(async () => {
      h = await startHarness({ env: { CONFIRMATION_TTL_SECONDS: "10" } });
      // The harness's app runs on the real clock: run the bot on one the test can move.
      await h.app.stop();
      skewMs = 0;
      restarted = await startApp({
        config: loadConfig(h.env, "start"),
        logger: silentLogger,
        pollTimeoutSeconds: 1,
        loopTickMs: 50,
        now: () => Date.now() + skewMs,
      });
    });

    it("says a prompt older than the TTL expired and sends nothing", async () => {
      const prompt = await promptFor("/pay 670000001 5000");
      expect(plainText(prompt)).toMatch(/expires in 1 min/);

      skewMs = 11_000;
      const expired = h.emulator.waitForMessage(
        (m) => m.messageId === prompt.messageId && plainText(m).includes("Expired"),
      );
      const press = await payer().pressButton(prompt, "✅ Confirm");
      const answer = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
      expect(answer.showAlert).toBe(true);
      expect(answer.text).toContain("This confirmation has expired");
      const afterPress = await expired;
      expect(afterPress.replyMarkup ?? []).toHaveLength(0);
      expect(plainText(afterPress)).toContain("Nothing was paid.");
      expect(disburseCount(h)).toBe(0);
      const stored = await app().stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 5 });
      expect(stored.items.map((p) => p.state)).toEqual(["expired"]);
    });

    it("still confirms a prompt inside the TTL", async () => {
      const prompt = await promptFor("/pay 670000001 5000");
      skewMs = 9_000;
      const pending = h.emulator.waitForMessage(
        (m) => m.messageId === prompt.messageId && plainText(m).includes("Pending"),
      );
      await payer().pressButton(prompt, "✅ Confirm");
      await pending;
      expect(disburseCount(h)).toBe(1);
    });
  });
});

/** Polls the store until the payer's newest payout is in `state` (the API reply is async). */
async function waitForState(h: Harness, userId: number, state: string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { items } = await h.app.stores.payouts.list({ userId, offset: 0, limit: 1 });
    const newest = items[0];
    if (newest?.state === state) return newest;
    if (Date.now() > deadline) throw new Error(`payout is ${newest?.state}, not ${state}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
