/**
 * After an outage many payouts can be unknown at once; /unknown must list them all, a page
 * at a time like /history, instead of one message too long for Telegram.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { payoutIn } from "../../contract/payout-store.contract.js";
import { isNewReplyIn, sendAndWait } from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest } from "../../support/harness.js";

describe("/unknown with many unknown payouts", () => {
  const h = harnessPerTest();

  it("lists 60 unknown payouts page by page, each one once", async () => {
    const made = [];
    for (let index = 0; index < 60; index++) made.push(await payoutIn(h.app.stores, "unknown"));
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });

    const first = await sendAndWait(h.emulator, admin, "/unknown", isNewReplyIn(ADMIN_ID));
    expect(plainText(first)).toContain("60 payouts with an unknown outcome");
    expect(plainText(first)).toContain("/resolve");
    const seen = new Set<string>();
    let page = first;
    for (let turn = 0; turn < 20; turn++) {
      for (const payout of made) if (plainText(page).includes(payout.id)) seen.add(payout.id);
      const older = page.replyMarkup?.flat().findIndex((button) => button.text.includes("Older"));
      if (older === undefined || older < 0) break;
      const next = h.emulator.waitForMessage(
        (m) => m.messageId === page.messageId && m.editCount > page.editCount,
      );
      await admin.pressButton(page, older);
      page = await next;
    }
    expect(seen.size).toBe(60);
  });
});
