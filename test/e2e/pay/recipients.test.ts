/**
 * Saved recipients end to end: /save with Save and Cancel, /recipients (search, pages),
 * /forget, paying by alias (the POST carries the number), a registered name that changed
 * since saving (warned; the saved name follows once paid), a batch file with a recipient
 * column, Save recipient under a paid notice, and who may do what.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { isNewReplyIn, isPromptIn, sendAndWait, showPrompt } from "../../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  harnessPerTest,
  PAYER_ID,
  VIEWER_ID,
} from "../../support/harness.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;

describe("saved recipients, end to end", () => {
  const h = harnessPerTest();

  const payer = () => h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });

  /** /save as `user`, then Save on its prompt; resolves with the prompt once it says so. */
  async function save(
    user: ReturnType<typeof payer>,
    command: string,
    button = 0,
  ): Promise<{ prompt: SentMessage; after: SentMessage }> {
    const prompt = await showPrompt(h.emulator, user, command);
    const after = h.emulator.waitForMessage(
      (m) => m.messageId === prompt.messageId && (m.replyMarkup ?? []).length === 0,
    );
    await user.pressButton(prompt, button);
    return { prompt, after: await after };
  }

  it("saves after Save, lists, searches and forgets, each step audited", async () => {
    const paul = payer();
    const { prompt, after } = await save(paul, "/save Jean 670000001");
    expect(plainText(prompt)).toContain("Save this recipient?");
    expect(plainText(prompt)).toContain("Alias: Jean");
    expect(plainText(prompt)).toContain("Registered name: Jean-Paul Mbarga");
    expect(plainText(prompt)).toContain("+237 670 00 00 01 (MTN MoMo)");
    expect(plainText(after)).toContain("Saved: Jean is Jean-Paul Mbarga");
    expect(await h.app.stores.recipients.get("jean")).toMatchObject({
      alias: "Jean",
      phone: "237670000001",
      operator: "mtn",
      registeredName: "Jean-Paul Mbarga",
      savedBy: PAYER_ID,
    });
    await save(paul, "/save Aïcha 690000001");

    // Cancel saves nothing.
    const { after: cancelled } = await save(paul, "/save brice 670000002", 1);
    expect(plainText(cancelled)).toContain("Nothing was saved");
    expect(await h.app.stores.recipients.get("brice")).toBeNull();

    const list = plainText(await sendAndWait(h.emulator, paul, "/recipients"));
    expect(list).toContain("Saved recipients (page 1 of 1)");
    expect(list).toContain("Aïcha · Aïcha Nkoulou · 69• •• •0 01 · not paid since saved");
    expect(list).toContain("Jean · Jean-Paul Mbarga · 67• •• •0 01");
    // Searched by name, without regard to accents or case.
    const found = plainText(await sendAndWait(h.emulator, paul, "/recipients NKOULOU"));
    expect(found).toContain("Aïcha");
    expect(found).not.toContain("Jean-Paul");
    const byAlias = plainText(await sendAndWait(h.emulator, paul, "/recipients aicha"));
    expect(byAlias).toContain("Aïcha Nkoulou");
    expect(plainText(await sendAndWait(h.emulator, paul, "/recipients zzz"))).toContain(
      "No saved recipient matches",
    );

    const forgotten = plainText(await sendAndWait(h.emulator, paul, "/forget AICHA"));
    expect(forgotten).toContain("Forgotten: Aïcha");
    expect(await h.app.stores.recipients.get("aicha")).toBeNull();
    expect(plainText(await sendAndWait(h.emulator, paul, "/forget aicha"))).toContain(
      "No saved recipient is called aicha",
    );

    const actions = (await h.app.stores.audit.recent(20)).map((entry) => entry.action);
    expect(actions.filter((action) => action === "recipient_saved")).toHaveLength(2);
    expect(actions).toContain("recipient_forgotten");
    // Nothing was ever paid.
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });

  it.each([
    ["en", "j\u0435an", "one alphabet only", "67O000001", "reads as a phone number"],
    ["fr", "j\u0435an", "d’un seul alphabet", "67O000001", "se lit comme un numéro"],
  ])(
    "refuses look-alike aliases with a reason, saving nothing (%s)",
    async (lang, mixed, why, numberish, because) => {
      const person = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: lang });
      await save(person, "/save jean 670000001");
      const refused = plainText(await sendAndWait(h.emulator, person, `/save ${mixed} 690000001`));
      expect(refused).toContain(why);
      const number = plainText(
        await sendAndWait(h.emulator, person, `/save ${numberish} 690000001`),
      );
      expect(number).toContain(because);
      // Paying "by" them does not reach the saved jean, nor the look-alike number.
      expect(plainText(await sendAndWait(h.emulator, person, `/pay ${mixed} 5000`))).toContain(why);
      const list = await h.app.stores.recipients.list();
      expect(list.map((entry) => entry.alias)).toEqual(["jean"]);
      expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
    },
  );

  it("speaks French to a French payer", async () => {
    const fr = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "fr" });
    const { prompt, after } = await save(fr, "/save jean 670000001");
    expect(plainText(prompt)).toContain("Enregistrer ce bénéficiaire\u202F?");
    expect(plainText(prompt)).toContain("Titulaire du compte\u202F: Jean-Paul Mbarga");
    expect(plainText(after)).toContain("Enregistré\u202F: jean désigne Jean-Paul Mbarga");
    const pay = await showPrompt(h.emulator, fr, "/pay jean 5000");
    expect(plainText(pay)).toContain("Bénéficiaire\u202F: Jean-Paul Mbarga (alias jean)");
    expect(plainText(await sendAndWait(h.emulator, fr, "/pay personne 5000"))).toContain(
      "Aucun bénéficiaire enregistré ne s’appelle personne.",
    );
  });

  it("asks before replacing an alias, showing the old and the new entry", async () => {
    const paul = payer();
    await save(paul, "/save jean 670000001");
    const { prompt, after } = await save(paul, "/save JEAN 690000001");
    const shown = plainText(prompt);
    expect(shown).toContain("Replace a saved recipient?");
    expect(shown).toContain("Now: Jean-Paul Mbarga, +237 670 00 00 01 (MTN MoMo), saved on");
    expect(shown).toContain("New: Aïcha Nkoulou, +237 690 00 00 01 (Orange Money)");
    expect(plainText(after)).toContain("Saved: JEAN is Aïcha Nkoulou");
    expect(await h.app.stores.recipients.get("jean")).toMatchObject({
      phone: "237690000001",
      rev: 2,
    });
  });

  it("pays by alias: the prompt shows it beside the name, and the request carries the number", async () => {
    const paul = payer();
    await save(paul, "/save jean 670000001");
    const prompt = await showPrompt(h.emulator, paul, "/pay jean 5000 rent");
    expect(plainText(prompt)).toContain("To: Jean-Paul Mbarga (saved as jean)");
    expect(plainText(prompt)).toContain("5,000 FCFA");
    const notice = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("✅ Paid"),
    );
    await paul.pressButton(prompt, 0);
    await notice;
    expect(h.sandbox.requests.filter((r) => r.path === "/disburse").map((r) => r.body)).toEqual([
      { amount: 5000, phoneNumber: "237670000001" },
    ]);
    // Saved already: no Save recipient button on the payout's message.
    const completed = h.emulator.message(PAYER_ID, prompt.messageId);
    expect(completed && plainText(completed)).toContain("Completed");
    expect(completed?.replyMarkup ?? []).toHaveLength(0);
    const list = plainText(await sendAndWait(h.emulator, paul, "/recipients"));
    expect(list).toMatch(/Jean-Paul Mbarga · 67• •• •0 01 · last paid \d/);

    // The dialog takes an alias too; an unknown one gets a clear answer.
    expect(plainText(await sendAndWait(h.emulator, paul, "/pay nobody 5000"))).toContain(
      "No saved recipient is called nobody",
    );
    await sendAndWait(h.emulator, paul, "/pay");
    const amountAsked = await sendAndWait(h.emulator, paul, "Jean");
    expect(plainText(amountAsked)).toContain("How much");
    const dialogPrompt = await sendAndWait(h.emulator, paul, "7000", isPromptIn(PAYER_ID));
    expect(plainText(dialogPrompt)).toContain("To: Jean-Paul Mbarga (saved as jean)");
    expect(plainText(dialogPrompt)).toContain("7,000 FCFA");
  });

  it("warns when the number's registered name changed since saving, and keeps the new one once paid", async () => {
    const paul = payer();
    await save(paul, "/save jean 670000001");
    h.sandbox.setRegisteredName("237670000001", { firstName: "Eric", lastName: "Tamba" });

    const prompt = await showPrompt(h.emulator, paul, "/pay jean 5000");
    const shown = plainText(prompt);
    expect(shown).toContain("To: Eric Tamba (saved as jean)");
    expect(shown).toMatch(
      /NAME CHANGED: jean was saved as Jean-Paul Mbarga on .+, now registered to Eric Tamba\./,
    );
    // Not before the payout is paid.
    expect((await h.app.stores.recipients.get("jean"))?.registeredName).toBe("Jean-Paul Mbarga");

    const notice = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("✅ Paid"),
    );
    await paul.pressButton(prompt, 0);
    await notice;
    await expect
      .poll(async () => (await h.app.stores.recipients.get("jean"))?.registeredName)
      .toBe("Eric Tamba");
    const actions = (await h.app.stores.audit.recent(20)).map((entry) => entry.action);
    expect(actions).toContain("recipient_renamed");
    // The next prompt has nothing to warn of.
    const next = await showPrompt(h.emulator, paul, "/pay jean 6000");
    expect(plainText(next)).not.toContain("NAME CHANGED");
  });

  it("pays a batch file whose recipient column holds aliases and numbers; an unknown alias is a row problem", async () => {
    const paul = payer();
    await save(paul, "/save jean 670000001");
    await save(paul, "/save aicha 690000001");
    const file = ["recipient,amount", "Jean,1000", "AÏCHA,2000", "670000005,1500", "paul,3000"];
    const preview = h.emulator.waitForMessage(
      (m) => plainText(m).includes("is checked.") && (m.replyMarkup ?? []).length > 0,
      20_000,
    );
    await paul.uploadDocument("pay.csv", "text/csv", Buffer.from(`${file.join("\n")}\n`));
    const shown = await preview;
    expect(plainText(shown)).toContain("row 5: no saved recipient is called paul");
    const summary = h.emulator.waitForMessage((m) => plainText(m).includes("is finished."), 30_000);
    await paul.pressButton(shown, 0);
    await summary;
    const bodies = h.sandbox.requests
      .filter((request) => request.path === "/disburse")
      .map((request) => request.body as { phoneNumber: string; amount: number })
      .map((body) => `${body.phoneNumber}:${body.amount}`)
      .sort();
    expect(bodies).toEqual(["237670000001:1000", "237670000005:1500", "237690000001:2000"]);
  });

  it("offers Save recipient on a paid payout's message when its number is not saved, and asks for the alias", async () => {
    const paul = payer();
    const prompt = await showPrompt(h.emulator, paul, "/pay 690000001 5000");
    const completed = h.emulator.waitForMessage(
      (m) => m.messageId === prompt.messageId && plainText(m).includes("Completed"),
    );
    await paul.pressButton(prompt, 0);
    const paid = await completed;
    expect(paid.replyMarkup?.flat().map((button) => button.text)).toEqual(["📇 Save recipient"]);

    const question = h.emulator.waitForMessage(
      (m) => isNewReplyIn(PAYER_ID)(m) && plainText(m).includes("Which alias"),
    );
    await paul.pressButton(paid, 0);
    const asked = await question;
    expect(plainText(asked)).toContain("Which alias for Aïcha Nkoulou (+237 690 00 00 01)?");

    // A reply that is no alias keeps the question open.
    // (The "Paid" notice of the payout may arrive meanwhile: wait for the answer itself.)
    const refused = h.emulator.waitForMessage(
      (m) => isNewReplyIn(PAYER_ID)(m) && plainText(m).includes("alias"),
    );
    await paul.sendText("a b", { replyTo: asked });
    expect(plainText(await refused)).toContain("An alias uses only letters");
    const savePrompt = h.emulator.waitForMessage(isPromptIn(PAYER_ID));
    await paul.sendText("aicha", { replyTo: asked });
    const shown = await savePrompt;
    expect(plainText(shown)).toContain("Alias: aicha");
    const saved = h.emulator.waitForMessage(
      (m) => m.messageId === shown.messageId && plainText(m).includes("Saved"),
    );
    await paul.pressButton(shown, 0);
    await saved;
    expect((await h.app.stores.recipients.get("aicha"))?.phone).toBe("237690000001");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
  });

  it("lets a viewer list but not save or forget, and only the saver or an admin forget", async () => {
    const paul = payer();
    await save(paul, "/save jean 670000001");
    const vera = h.emulator.user({ id: VIEWER_ID, firstName: "Vera", languageCode: "en" });
    const refused = plainText(await sendAndWait(h.emulator, vera, "/save vera 690000001"));
    expect(refused).toContain("Your role (viewer) can list saved recipients");
    expect(plainText(await sendAndWait(h.emulator, vera, "/forget jean"))).toContain(
      "Your role (viewer)",
    );
    expect(plainText(await sendAndWait(h.emulator, vera, "/recipients"))).toContain("Jean-Paul");
    // Only the initiator presses Save.
    const prompt = await showPrompt(h.emulator, paul, "/save aicha 690000001");
    const press = await vera.pressButton(prompt, 0);
    const answer = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
    expect(answer.text).toContain("Only the person who asked");
    expect(await h.app.stores.recipients.get("aicha")).toBeNull();
    // Another payer (an approver pays too) may neither replace nor forget Paul's alias.
    const ama = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    expect(plainText(await sendAndWait(h.emulator, ama, "/save jean 690000001"))).toContain(
      "jean is saved by someone else",
    );
    expect(plainText(await sendAndWait(h.emulator, ama, "/forget jean"))).toContain(
      "Only the person who saved jean, or an admin",
    );
    // An admin forgets what a payer saved.
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    expect(plainText(await sendAndWait(h.emulator, admin, "/forget jean"))).toContain(
      "Forgotten: jean",
    );
  });

  it("pages a long list, a search's pages included, and collects by alias", async () => {
    const paul = payer();
    for (let index = 1; index <= 12; index++) {
      const alias = `agent${String(index).padStart(2, "0")}`;
      const recipient = {
        alias,
        phone: `2376700001${String(index).padStart(2, "0")}`,
        operator: "mtn",
        registeredName: `Agent ${index}`,
        savedBy: PAYER_ID,
        savedAtMs: Date.now(),
        rev: 1,
      } as const;
      await h.app.stores.recipients.put(alias, recipient, 0);
    }
    const first = await sendAndWait(h.emulator, paul, "/recipients agent");
    expect(plainText(first)).toContain("matching “agent” (page 1 of 2)");
    expect(plainText(first)).toContain("agent10");
    expect(plainText(first)).not.toContain("agent11");
    const second = h.emulator.waitForMessage(
      (m) => m.messageId === first.messageId && plainText(m).includes("page 2 of 2"),
    );
    await paul.pressButton(first, 0);
    expect(plainText(await second)).toContain("agent12");

    const prompt = await showPrompt(h.emulator, paul, "/collect agent03 2500");
    expect(plainText(prompt)).toContain("(saved as agent03)");
    // Saved as "Agent 3" here, the sandbox has another name for it: the prompt says so.
    expect(plainText(prompt)).toContain("NAME CHANGED: agent03 was saved as Agent 3");
    const collected = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("✅ Collected"),
    );
    await paul.pressButton(prompt, 0);
    await collected;
    expect(h.sandbox.requests.filter((r) => r.path === "/collect").map((r) => r.body)).toEqual([
      { amount: 2500, phoneNumber: "237670000103" },
    ]);
    // Collected from the number now registered: the saved name follows.
    await expect
      .poll(async () => (await h.app.stores.recipients.get("agent03"))?.registeredName)
      .not.toBe("Agent 3");
  });

  it("saves once for many presses, and never overwrites a save made after the prompt", async () => {
    const paul = payer();
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const paulPrompt = await showPrompt(h.emulator, paul, "/save jean 670000001");
    const adminPrompt = await showPrompt(h.emulator, admin, "/save Jean 690000001");

    // The admin's Save lands first; Paul's prompt said "new alias", so his is refused.
    const presses = await Promise.all(
      Array.from({ length: 10 }, () => admin.pressButton(adminPrompt, 0)),
    );
    const answers = await Promise.all(
      presses.map((press) => h.emulator.waitForCallbackAnswer(press.callbackQueryId)),
    );
    expect(answers.filter((answer) => answer.text === "Saved")).toHaveLength(1);
    const refused = h.emulator.waitForMessage(
      (m) => m.messageId === paulPrompt.messageId && plainText(m).includes("changed"),
    );
    await paul.pressButton(paulPrompt, 0);
    expect(plainText(await refused)).toContain("Someone changed Jean in the meantime");
    expect(await h.app.stores.recipients.get("jean")).toMatchObject({
      phone: "237690000001",
      savedBy: ADMIN_ID,
      rev: 1,
    });
    const saves = (await h.app.stores.audit.recent(20)).filter(
      (entry) => entry.action === "recipient_saved",
    );
    expect(saves).toHaveLength(1);
  });
});

describe("saved recipients and approval, end to end", () => {
  const h = harnessPerTest({ env: { APPROVAL_THRESHOLD_XAF: "100000" } });

  it("shows the approver that the saved name changed, and keeps the new name once paid", async () => {
    const paul = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const ama = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    const savePrompt = await showPrompt(h.emulator, paul, "/save jean 670000001");
    const saved = h.emulator.waitForMessage(
      (m) => m.messageId === savePrompt.messageId && plainText(m).includes("Saved"),
    );
    await paul.pressButton(savePrompt, 0);
    await saved;
    h.sandbox.setRegisteredName("237670000001", { firstName: "Eric", lastName: "Tamba" });

    const prompt = await showPrompt(h.emulator, paul, "/pay jean 150000");
    const card = h.emulator.waitForMessage(
      (m) => isPromptIn(APPROVER_ID)(m) && plainText(m).includes("Approval needed"),
    );
    await paul.pressButton(prompt, 0);
    const shown = plainText(await card);
    expect(shown).toContain("To: Eric Tamba (saved as jean)");
    expect(shown).toContain("NAME CHANGED: jean was saved as Jean-Paul Mbarga");
    expect((await h.app.stores.recipients.get("jean"))?.registeredName).toBe("Jean-Paul Mbarga");

    const paid = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).startsWith("✅ Paid"),
    );
    await ama.pressButton(await card, 0);
    await paid;
    expect(h.sandbox.requests.filter((r) => r.path === "/disburse").map((r) => r.body)).toEqual([
      { amount: 150000, phoneNumber: "237670000001" },
    ]);
    await expect
      .poll(async () => (await h.app.stores.recipients.get("jean"))?.registeredName)
      .toBe("Eric Tamba");
  });
});
