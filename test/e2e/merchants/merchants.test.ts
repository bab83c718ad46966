/**
 * One bot, two businesses: /merchant lists and switches, messages name the merchant for a
 * person who works for both, a payout lands in the merchant the person acts for, and roles
 * are per merchant.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { isNewReplyIn, isPromptIn, isPromptReading, sendAndWait } from "../../support/flows.js";
import {
  ADA,
  BEA,
  type MerchantsHarness,
  MO,
  PAUL,
  startMerchantsHarness,
  storesOf,
} from "./merchants-harness.js";

let h: MerchantsHarness;

beforeAll(async () => {
  h = await startMerchantsHarness();
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe("many merchants, one bot", () => {
  it("pays in the merchant the person acts for, naming it to someone who works for two", async () => {
    const mo = h.emulator.user({ id: MO, firstName: "Mo", languageCode: "en" });
    const prompt = h.emulator.waitForMessage(isPromptIn(MO));
    await mo.sendText("/pay 237670000001 5000");
    const shown = await prompt;
    expect(plainText(shown)).toContain("Alpha Couriers");
    const paid = h.emulator.waitForMessage(
      (m) => m.chatId === MO && m.messageId !== shown.messageId && plainText(m).includes("Paid"),
      15_000,
    );
    await mo.pressButton(shown, 0);
    expect(plainText(await paid)).toContain("Alpha Couriers");
    const alpha = await storesOf(h, "alpha").payouts.list({ userId: MO, offset: 0, limit: 5 });
    const bravo = await storesOf(h, "bravo").payouts.list({ userId: MO, offset: 0, limit: 5 });
    expect(alpha.items).toHaveLength(1);
    expect(bravo.items).toHaveLength(0);
  });

  it("lists a person's merchants with /merchant and switches the one their commands act on", async () => {
    const mo = h.emulator.user({ id: MO, firstName: "Mo", languageCode: "en" });
    const list = await sendAndWait(h.emulator, mo, "/merchant", isPromptIn(MO));
    expect(plainText(list)).toContain("You work for 2 businesses");
    expect(list.replyMarkup?.flat().map((button) => button.text)).toEqual([
      "✅ Alpha Couriers",
      "Bravo & Sons",
    ]);
    const switched = h.emulator.waitForMessage(isPromptReading(list, "now act for Bravo"));
    await mo.pressButton(list, 1);
    await switched;

    const prompt = await sendAndWait(h.emulator, mo, "/pay 237670000002 7000", isPromptIn(MO));
    expect(plainText(prompt)).toContain("Bravo & Sons");
    await mo.pressButton(prompt, 0);
    await h.emulator.waitForMessage(isPromptReading(prompt, "Pending"));
    const bravo = await storesOf(h, "bravo").payouts.list({ userId: MO, offset: 0, limit: 5 });
    expect(bravo.items.map((payout) => payout.amount)).toEqual([7000]);
  });

  it("offers /merchant in the command menu, in English and French", () => {
    const names = (language?: string) =>
      (h.emulator.commands(language) ?? []).map((command) => command.command);
    expect(names()).toContain("merchant");
    expect(names("fr")).toContain("merchant");
  });

  it("says so when the person works for one merchant only, without naming it in every message", async () => {
    const ada = h.emulator.user({ id: ADA, firstName: "Ada", languageCode: "en" });
    const answer = await sendAndWait(h.emulator, ada, "/merchant", isNewReplyIn(ADA));
    expect(plainText(answer)).toContain("one business here: Alpha Couriers");
    const help = await sendAndWait(h.emulator, ada, "/help", isNewReplyIn(ADA));
    expect(plainText(help)).not.toContain("Alpha Couriers");
  });

  it("keeps a person's role per merchant: a payer of Alpha is a viewer in Bravo", async () => {
    const paul = h.emulator.user({ id: PAUL, firstName: "Paul", languageCode: "en" });
    const inAlpha = await sendAndWait(h.emulator, paul, "/pay 237670000001 1000", isPromptIn(PAUL));
    expect(plainText(inAlpha)).toContain("Alpha Couriers");
    const list = await sendAndWait(h.emulator, paul, "/merchant", isPromptIn(PAUL));
    const switched = h.emulator.waitForMessage(isPromptReading(list, "now act for Bravo"));
    await paul.pressButton(list, 1);
    await switched;
    const refused = await sendAndWait(
      h.emulator,
      paul,
      "/pay 237670000001 1000",
      isNewReplyIn(PAUL),
    );
    expect(plainText(refused)).toContain("Bravo & Sons");
    expect(refused.replyMarkup ?? []).toHaveLength(0);
    const bea = h.emulator.user({ id: BEA, firstName: "Bea", languageCode: "en" });
    expect(await storesOf(h, "bravo").staff.get(PAUL)).toBe("viewer");
    expect(await storesOf(h, "alpha").staff.get(PAUL)).toBe("payer");
    expect(await storesOf(h, "alpha").staff.get(bea.id)).toBeNull();
  });

  it("mentions /merchant in /help to a person of several merchants only, in their language", async () => {
    const mo = h.emulator.user({ id: MO, firstName: "Mo", languageCode: "en" });
    const mos = plainText(await sendAndWait(h.emulator, mo, "/help"));
    expect(mos).toContain("/merchant – the businesses you work for");
    const paul = h.emulator.user({ id: PAUL, firstName: "Paul", languageCode: "en" });
    await sendAndWait(h.emulator, paul, "/lang fr");
    const pauls = plainText(await sendAndWait(h.emulator, paul, "/help"));
    await sendAndWait(h.emulator, paul, "/lang en");
    expect(pauls).toContain("/merchant – les entreprises pour lesquelles vous travaillez\u202F:");
    const ada = h.emulator.user({ id: ADA, firstName: "Ada", languageCode: "en" });
    const adas = plainText(await sendAndWait(h.emulator, ada, "/help"));
    expect(adas).toContain("/lang en|fr");
    expect(adas).not.toContain("/merchant");
  });

  it("answers /merchant in French to a French speaker, here one who works for none", async () => {
    const ana = h.emulator.user({ id: 4242, firstName: "Ana", languageCode: "fr" });
    const list = await sendAndWait(h.emulator, ana, "/merchant", isNewReplyIn(4242));
    expect(plainText(list)).toContain("Vous ne faites partie du personnel");
  });
});
