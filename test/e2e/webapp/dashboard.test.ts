/**
 * /dashboard through the emulator: with WEBAPP_URL, a button that opens the Mini App and the
 * chat's menu button set to it (every staff member's at start); without it, how to set it up.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { sendAndWait } from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID, STRANGER_ID } from "../../support/harness.js";

const URL = "https://pay.example.com/app/";

describe("/dashboard with WEBAPP_URL", () => {
  const h = harnessPerTest({ env: { WEBAPP_URL: URL } });

  it("answers a button opening the Mini App and sets the staff's menu buttons", async () => {
    // Set at start for every staff member, in the background.
    await expect
      .poll(() => h.emulator.menuButton(PAYER_ID).type, { timeout: 5_000 })
      .toBe("web_app");
    expect(h.emulator.menuButton(PAYER_ID)).toMatchObject({ web_app: { url: URL } });
    expect(h.emulator.menuButton(STRANGER_ID).type).toBe("default");

    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "fr" });
    const reply = await sendAndWait(h.emulator, admin, "/dashboard");
    expect(plainText(reply)).toContain("Tableau de bord");
    const button = reply.replyMarkup?.[0]?.[0];
    expect(button).toMatchObject({ text: "Ouvrir le tableau de bord", web_app: { url: URL } });
    expect(h.emulator.menuButton(ADMIN_ID)).toMatchObject({
      type: "web_app",
      text: "Tableau de bord",
      web_app: { url: URL },
    });
  });
});

describe("/dashboard without WEBAPP_URL", () => {
  const h = harnessPerTest();

  it("says how to set the Mini App up, and sets no menu button", async () => {
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const reply = await sendAndWait(h.emulator, admin, "/dashboard");
    expect(plainText(reply)).toContain("The dashboard is not set up yet");
    expect(plainText(reply)).toContain("WEBAPP_URL");
    expect(reply.replyMarkup).toBeUndefined();
    expect(h.emulator.menuButton(ADMIN_ID).type).toBe("default");
  });
});
