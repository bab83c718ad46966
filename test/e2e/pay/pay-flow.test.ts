import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { ADMIN_ID, harnessPerTest } from "../../support/harness.js";

describe("/pay, end to end", () => {
  const h = harnessPerTest();

  it("pays a registered number after Confirm and tells the payer when the money arrived", async () => {
    const payer = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });

    const prompt = h.emulator.waitForMessage(
      (m) => m.chatId === ADMIN_ID && (m.replyMarkup?.length ?? 0) > 0,
    );
    await payer.sendText("/pay 237670000001 5000 delivery");
    const shown = await prompt;
    const text = plainText(shown);
    expect(text).toContain("Jean-Paul");
    expect(text).toContain("+237 670 00 00 01");
    expect(text).toContain("5,000 FCFA");
    expect(text).toContain("delivery");
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);

    const pending = h.emulator.waitForMessage(
      (m) => m.messageId === shown.messageId && plainText(m).includes("Pending"),
    );
    await payer.pressButton(shown, 0);
    const afterConfirm = await pending;
    expect(afterConfirm.replyMarkup ?? []).toHaveLength(0);
    const payment = h.sandbox.requests.find((r) => r.method === "POST" && r.path === "/disburse");
    expect(payment?.body).toEqual({ amount: 5000, phoneNumber: "237670000001" });

    const notice = await h.emulator.waitForMessage(
      (m) =>
        m.chatId === ADMIN_ID && m.messageId !== shown.messageId && plainText(m).includes("Paid"),
    );
    expect(plainText(notice)).toContain("5,000 FCFA");
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
  });
});
