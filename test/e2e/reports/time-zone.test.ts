/**
 * TIME_ZONE: every time a user reads (the prompt's expiry, the notice of a final status)
 * is in the configured zone and says which one.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { translator } from "../../../src/i18n.js";
import { confirmPayout } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID } from "../../support/harness.js";

describe("TIME_ZONE", () => {
  const h = harnessPerTest({ env: { TIME_ZONE: "America/New_York" } });

  it("shows the prompt's expiry and the payout's time in the configured zone, with its offset", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const notice = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("Paid:"),
    );
    const { prompt, payout } = await confirmPayout(h, payer, "/pay 670000001 5000");

    const newYork = translator("en", "America/New_York");
    const douala = translator("en");
    expect(newYork.time(payout.expiresAtMs)).toMatch(/ UTC-[45]$/);
    expect(plainText(prompt)).toContain(`(${newYork.time(payout.expiresAtMs)})`);
    expect(plainText(prompt)).not.toContain(douala.time(payout.expiresAtMs));

    const paid = plainText(await notice);
    const settledAtMs = (await h.app.stores.payouts.get(payout.id))?.settledAtMs;
    if (settledAtMs === undefined) throw new Error("the paid payout has no settlement time");
    expect(paid).toContain(`Time: ${newYork.time(settledAtMs)}`);
  });
});
