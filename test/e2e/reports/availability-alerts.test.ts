/**
 * Operator availability alerts end to end: the watcher reads GET /availability every
 * AVAILABILITY_CHECK_SECONDS; when an operator's payouts or collections go down (here:
 * suspended through the sandbox's admin surface) or come back, the admins (or
 * ALERT_CHAT_ID) get one message per change, not one per check, saying since when and
 * how many payouts are pending with that operator. /availability shows the time of each
 * last change. A second replica or a restart does not alert again.
 */
import { describe, expect, it } from "vitest";
import { type App, startApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config/index.js";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { translator } from "../../../src/i18n.js";
import { silentLogger } from "../../../src/logger.js";
import { isNewReplyIn, payAndConfirm, sendAndWait } from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID, VIEWER_ID } from "../../support/harness.js";
import { waitUntil } from "../../support/processes.js";

const en = translator("en");
const ALERT_CHAT = -1001234567890;

function availabilityChecks(h: { sandbox: { countRequests(f: object): number } }): number {
  return h.sandbox.countRequests({ method: "GET", path: "/availability" });
}

/** Waits until the watcher has read the API `count` more times than now. */
async function checksPass(h: { sandbox: { countRequests(f: object): number } }, count: number) {
  const target = availabilityChecks(h) + count;
  await waitUntil(() => availabilityChecks(h) >= target, `${count} availability checks`, 15_000);
}

describe("operator availability alerts", () => {
  const h = harnessPerTest({ env: { AVAILABILITY_CHECK_SECONDS: "1" } });

  it("alerts the admins once when MTN payouts are suspended and once when they are back", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const viewer = h.emulator.user({ id: VIEWER_ID, firstName: "Véro", languageCode: "en" });
    h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    // A payout that stays pending with MTN, for the alert to count.
    await payAndConfirm(h.emulator, payer, "/pay 670000003 5000");
    await checksPass(h, 1);
    const alerts = () =>
      h.emulator
        .messages(ADMIN_ID)
        .map((message) => plainText(message))
        .filter((text) => text.includes("MTN MoMo payouts"));

    const down = h.emulator.waitForMessage(
      (m) => m.chatId === ADMIN_ID && plainText(m).includes("payouts are down"),
      10_000,
    );
    h.sandbox.setAvailability("mtn", "disbursement", "SUSPENDED");
    const downText = plainText(await down);
    const [state] = (await h.app.stores.reports.availability()).filter(
      (item) => item.operator === "mtn" && item.operation === "disbursement",
    );
    expect(state).toMatchObject({ status: "SUSPENDED", up: false, firstSeen: false });
    const since = en.time(state?.sinceMs ?? 0);
    expect(downText).toBe(
      [
        `⛔ MTN MoMo payouts are down (Suspended) since ${since}.`,
        "Payouts pending with MTN MoMo right now: 1.",
        "New ones are refused until it is back; the bot will say when.",
      ].join("\n"),
    );
    await checksPass(h, 3);
    expect(alerts()).toHaveLength(1);
    // Only admins are alerted.
    expect(h.emulator.messages(PAYER_ID).some((m) => plainText(m).includes("are down"))).toBe(
      false,
    );

    const shown = await sendAndWait(h.emulator, viewer, "/availability", isNewReplyIn(VIEWER_ID));
    expect(plainText(shown)).toContain(`MTN MoMo: payouts ⛔ Suspended (since ${since})`);
    expect(plainText(shown)).toContain("collections ✅ Available (no change seen since");

    const up = h.emulator.waitForMessage(
      (m) => m.chatId === ADMIN_ID && plainText(m).includes("payouts work again"),
      10_000,
    );
    h.sandbox.setAvailability("mtn", "disbursement", "OPERATIONAL");
    expect(plainText(await up)).toMatch(
      /^✅ MTN MoMo payouts work again since .+\.\nPayouts pending with MTN MoMo right now: 1\.$/,
    );
    await checksPass(h, 3);
    expect(alerts()).toHaveLength(2);
    const again = await sendAndWait(h.emulator, viewer, "/availability", isNewReplyIn(VIEWER_ID));
    expect(plainText(again)).toMatch(
      /MTN MoMo: payouts ✅ Available \(since \d{2} \w{3}, \d{2}:\d{2} UTC\+1\)/,
    );
  });
});

describe("operator availability alerts to ALERT_CHAT_ID", () => {
  const h = harnessPerTest({
    env: { AVAILABILITY_CHECK_SECONDS: "1", ALERT_CHAT_ID: String(ALERT_CHAT) },
  });

  it("go to that chat instead of the admins, once, whatever the replicas and restarts", async () => {
    h.emulator.group(ALERT_CHAT, "Operations");
    await checksPass(h, 1);
    const down = h.emulator.waitForMessage(
      (m) => m.chatId === ALERT_CHAT && plainText(m).includes("collections are down"),
      10_000,
    );
    h.sandbox.setAvailability("orange", "collection", "SUSPENDED");
    expect(plainText(await down)).toContain(
      "⛔ Orange Money collections are down (Suspended) since",
    );
    expect(plainText(await down)).toContain("Collections pending with Orange Money right now: 0.");

    // A second replica starting, as after a restart, finds the change already told.
    const second: App = await startApp({
      config: loadConfig(h.env, "start"),
      logger: silentLogger,
      pollTimeoutSeconds: 1,
      loopTickMs: 50,
      http: false,
    });
    try {
      expect(await second.reports.availability.check()).toBe(0);
      await checksPass(h, 3);
    } finally {
      await second.stop();
    }
    expect(
      h.emulator.messages(ALERT_CHAT).filter((m) => plainText(m).includes("Orange Money")),
    ).toHaveLength(1);
    expect(h.emulator.messages(ADMIN_ID).filter((m) => plainText(m).includes("Orange"))).toEqual(
      [],
    );
  });
});
