/**
 * Daily spending caps end to end: the amount is reserved at Confirm in the same atomic step
 * as the move, so two Confirms racing at the cap cannot both pass; over a cap the prompt or
 * the Confirm is refused with what is left today, nothing sent; /limits shows the caps and
 * what was used.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { isNewReplyWith, sendAndWait, showPrompt } from "../../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  harnessPerTest,
  PAYER_ID,
  VIEWER_ID,
} from "../../support/harness.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;

describe("daily limits, end to end", () => {
  const h = harnessPerTest({
    env: { PAYER_DAILY_LIMIT_XAF: "8000", MERCHANT_DAILY_LIMIT_XAF: "10000" },
  });

  it("lets exactly one of two Confirms racing at the cap through, and says what is left", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    // Both prompts fit the day as it stands; together they would not.
    const mine = await showPrompt(h.emulator, payer, "/pay 670000001 6000");
    const theirs = await showPrompt(h.emulator, admin, "/pay 690000001 6000");

    const presses = await Promise.all([payer.pressButton(mine, 0), admin.pressButton(theirs, 0)]);
    const answers = await Promise.all(
      presses.map((press) => h.emulator.waitForCallbackAnswer(press.callbackQueryId)),
    );
    const refused = answers.filter((answer) => answer.showAlert);
    expect(answers.filter((answer) => answer.text === "Sending…")).toHaveLength(1);
    expect(refused.map((answer) => answer.text)).toEqual([
      "⛔ That is over the daily limit of 10,000 FCFA for everyone together: 4,000 FCFA left today. Nothing was done.",
    ]);
    await expect.poll(() => h.sandbox.countRequests(DISBURSE)).toBe(1);
    const payouts = await h.app.stores.payouts.list({ offset: 0, limit: 5 });
    expect(payouts.items.map((payout) => payout.state).sort()).toEqual([
      "awaiting_confirmation",
      "pending",
    ]);
    const audited = (await h.app.stores.audit.recent(20)).filter(
      (entry) => entry.action === "limit_refused",
    );
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ details: { step: "confirm", limit: "merchant" } });

    // A new prompt over what is left is refused at once, and nothing is stored.
    const refusal = await sendAndWait(
      h.emulator,
      h.emulator.user({ id: APPROVER_ID }),
      "/pay 670000005 5000",
    );
    expect(plainText(refusal)).toBe(
      "⛔ That is over the daily limit of 10,000 FCFA for everyone together: 4,000 FCFA left today. Nothing was done.",
    );
    expect((await h.app.stores.payouts.list({ offset: 0, limit: 5 })).total).toBe(2);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
  });

  it("refuses a payer's prompt over their own cap", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 670000001 5000");
    await payer.pressButton(prompt, 0);
    await expect.poll(() => h.sandbox.countRequests(DISBURSE)).toBe(1);
    // The first payout's "Paid" notice may come first in this chat: wait for the refusal itself.
    const refusal = await sendAndWait(
      h.emulator,
      payer,
      "/pay 690000001 4000",
      isNewReplyWith(PAYER_ID, "over your daily limit"),
    );
    expect(plainText(refusal)).toBe(
      "⛔ That is over your daily limit of 8,000 FCFA: you have 3,000 FCFA left today. Nothing was done.",
    );
  });

  it("shows the caps and today's use with /limits: one's own, and for admins each payer's", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 670000001 3000");
    await payer.pressButton(prompt, 0);
    await expect.poll(() => h.sandbox.countRequests(DISBURSE)).toBe(1);

    // The payout's "Paid" notice may come first in this chat: wait for the /limits answer.
    const mine = plainText(
      await sendAndWait(h.emulator, payer, "/limits", isNewReplyWith(PAYER_ID, "Each payer")),
    );
    expect(mine).toContain("Each payer: 8,000 FCFA a day");
    expect(mine).toContain("Everyone together: 10,000 FCFA a day");
    expect(mine).toContain("You today: 3,000 FCFA used, 5,000 FCFA left");
    expect(mine).toContain("Everyone today: 3,000 FCFA used, 7,000 FCFA left");
    expect(mine).not.toContain("By payer");

    const everyone = plainText(await sendAndWait(h.emulator, admin, "/limits"));
    expect(everyone).toContain("You today: 0 FCFA used, 7,000 FCFA left");
    expect(everyone).toContain("By payer today\nPaul: 3,000 FCFA");

    const viewer = h.emulator.user({ id: VIEWER_ID, languageCode: "fr" });
    const french = plainText(await sendAndWait(h.emulator, viewer, "/limits"));
    expect(french).toContain(
      "Toute l’équipe, aujourd’hui\u202F: engagé 3\u202F000\u00A0FCFA, disponible 7\u202F000\u00A0FCFA",
    );
    expect(french).not.toContain("Vous, aujourd’hui");
  });
});
