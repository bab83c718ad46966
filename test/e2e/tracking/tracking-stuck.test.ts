/**
 * A payout that stays pending past PAYOUT_STUCK_AFTER_HOURS: the payer and the admins are
 * told once, and polling goes on. The app runs on a clock the test can move forward.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { payAndConfirm } from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";

const HOUR_MS = 3_600_000;

/** The app's clock runs this far ahead of the real one. */
let offsetMs = 0;

beforeEach(() => {
  offsetMs = 0;
});

const h = harnessPerTest({
  env: { PAYOUT_STUCK_AFTER_HOURS: "1" },
  now: () => Date.now() + offsetMs,
});

function isStuckNotice(message: SentMessage): boolean {
  return plainText(message).startsWith("⚠️ Still pending:");
}

describe("a payout that stays pending", () => {
  it("is reported as stuck to the payer and the admins once, and is still polled", async () => {
    // The admin has a chat with the bot, so the report can reach them.
    h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });

    const prompt = await payAndConfirm(h.emulator, payer, "/pay 237670000003 5000");
    const [payout] = (await h.app.stores.payouts.listInState("pending")).filter(
      (item) => item.messageId === prompt.messageId,
    );
    const paymentId = payout?.paymentId ?? "";
    const reads = () => h.sandbox.countRequests({ method: "GET", path: `/payments/${paymentId}` });

    // Polled, still pending, nobody told anything yet.
    await expect.poll(reads).toBeGreaterThanOrEqual(1);
    expect(h.emulator.messages(PAYER_ID).filter(isStuckNotice)).toHaveLength(0);

    const toPayer = h.emulator.waitForMessage((m) => m.chatId === PAYER_ID && isStuckNotice(m));
    const toAdmin = h.emulator.waitForMessage((m) => m.chatId === ADMIN_ID && isStuckNotice(m));
    offsetMs = HOUR_MS + 60_000;
    const [payerNotice, adminNotice] = await Promise.all([toPayer, toAdmin]);
    for (const notice of [payerNotice, adminNotice]) {
      expect(plainText(notice)).toContain("5,000 FCFA for Hervé Tchamba");
      expect(plainText(notice)).toContain(`Payment id: ${paymentId}`);
    }

    // Tracking goes on, and a second hour brings no second report.
    const readsAtNotice = reads();
    offsetMs += HOUR_MS;
    await expect.poll(reads).toBeGreaterThan(readsAtNotice);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.emulator.messages(PAYER_ID).filter(isStuckNotice)).toHaveLength(1);
    expect(h.emulator.messages(ADMIN_ID).filter(isStuckNotice)).toHaveLength(1);
    const stored = await h.app.stores.payouts.get(payout?.id ?? "");
    expect(stored?.state).toBe("pending");
    expect(stored?.stuckReportedAtMs).toBeDefined();
    expect(await h.app.stores.tracking.dueAt(payout?.id ?? "")).not.toBeNull();
  });
});
