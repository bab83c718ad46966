/**
 * The digest's chart end to end: at DIGEST_HOUR every admin gets, before the digest's
 * text, a photo (sendPhoto) of the last seven days' paid volume by operator: a PNG of the
 * chart's size, captioned with the week's totals in the admin's language. The text stays.
 */
import { describe, expect, it } from "vitest";
import { CHART_HEIGHT, CHART_WIDTH } from "../../../src/bot/views/digest-chart.js";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { shiftedDayClock } from "../../support/clock.js";
import { isNewReplyIn, payAndConfirm, sendAndWait } from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";

const ZONE = "Africa/Douala";
const FRENCH_ADMIN_ID = 1005;
const clock = shiftedDayClock(ZONE);
clock.setLocalTime(19, 59, 0);

const h = harnessPerTest({
  env: {
    DIGEST_HOUR: "20",
    TIME_ZONE: ZONE,
    STAFF: `${ADMIN_ID}:admin,${FRENCH_ADMIN_ID}:admin,${PAYER_ID}:payer`,
  },
  now: clock.now,
});

/** What a PNG says of itself: its 8-byte signature, then IHDR's width and height. */
function pngHeader(bytes: Buffer) {
  return {
    signature: bytes.subarray(0, 8).toString("hex"),
    chunk: bytes.toString("latin1", 12, 16),
    width: bytes.readUInt32BE(16),
    height: bytes.readUInt32BE(20),
  };
}

describe("the daily digest's chart", () => {
  it("comes as a PNG photo before the text, with the week's totals by operator", async () => {
    clock.setLocalTime(19, 59, 0);
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const french = h.emulator.user({ id: FRENCH_ADMIN_ID, firstName: "Éloi", languageCode: "fr" });
    await sendAndWait(h.emulator, french, "/lang fr", isNewReplyIn(FRENCH_ADMIN_ID));
    await payAndConfirm(h.emulator, payer, "/pay 670000001 5000", "Completed");
    await payAndConfirm(h.emulator, payer, "/pay 690000001 7000", "Completed");
    // Neither a failed payout nor a collection is paid volume.
    await payAndConfirm(h.emulator, payer, "/pay 670000002 5100", "Failed");
    await payAndConfirm(h.emulator, payer, "/collect 690000001 3000", "Completed");

    const digest = h.emulator.waitForMessage(
      (message) => message.chatId === ADMIN_ID && plainText(message).startsWith("📊"),
    );
    const frenchDigest = h.emulator.waitForMessage(
      (message) => message.chatId === FRENCH_ADMIN_ID && plainText(message).startsWith("📊"),
    );
    clock.setLocalTime(20, 0, 5);
    const text = await digest;
    expect(plainText(text)).toContain("✅ Completed: 2 · 12,000 FCFA");

    const [photo, ...others] = h.emulator.photos(ADMIN_ID);
    expect(others).toEqual([]);
    expect(photo?.messageId).toBeLessThan(text.messageId);
    expect(photo?.mimeType).toBe("image/png");
    expect(pngHeader(photo?.bytes ?? Buffer.alloc(24))).toEqual({
      signature: "89504e470d0a1a0a",
      chunk: "IHDR",
      width: CHART_WIDTH,
      height: CHART_HEIGHT,
    });
    expect({ width: photo?.width, height: photo?.height }).toEqual({
      width: CHART_WIDTH,
      height: CHART_HEIGHT,
    });
    expect(photo?.caption).toBe(
      "📈 Paid over the last 7 days: MTN MoMo 5,000 FCFA · Orange Money 7,000 FCFA",
    );

    await frenchDigest;
    const [frenchPhoto] = h.emulator.photos(FRENCH_ADMIN_ID);
    expect(frenchPhoto?.caption).toBe(
      "📈 Payé ces 7 derniers jours\u202F: MTN MoMo 5\u202F000\u00A0FCFA · Orange Money 7\u202F000\u00A0FCFA",
    );
    const sendPhoto = h.emulator.calls.filter((call) => call.method === "sendPhoto");
    expect(sendPhoto.map((call) => call.params.chat_id).sort()).toEqual(
      [ADMIN_ID, FRENCH_ADMIN_ID].map(String).sort(),
    );
    expect(h.emulator.photos(PAYER_ID)).toEqual([]);
  });
});
