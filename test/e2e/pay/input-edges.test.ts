/**
 * What users and the API type reaches messages safely: an amount is read whole or refused
 * whole, and a registered name cannot draw lines of its own in the confirmation prompt.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { isNewReplyIn, sendAndWait, showPrompt } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID } from "../../support/harness.js";

describe("input and output edges", () => {
  const h = harnessPerTest();

  it.each([
    ["/pay 670000001 6 000 000", "5,000,000"],
    ["/pay 670000001 1 000.50", "whole"],
  ])("refuses %s whole, saying why, and prompts for nothing", async (command, says) => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const reply = await sendAndWait(h.emulator, payer, command, isNewReplyIn(PAYER_ID));

    expect(plainText(reply)).toContain(says);
    expect(reply.replyMarkup ?? []).toHaveLength(0);
    expect(await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 5 })).toEqual({
      items: [],
      total: 0,
    });
    expect(h.sandbox.countRequests({ method: "GET", path: /^\/data\/userinfo\// })).toBe(0);
  });

  it("shows a registered name with a newline in it on one line, so it cannot fake an amount", async () => {
    h.sandbox.injectFault({
      method: "GET",
      path: "/data/userinfo/237670000009",
      status: 200,
      body: { firstName: "Alice\nAmount: 1 FCFA\n", lastName: "Fotso\u0000" },
    });
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 237670000009 5000");

    const lines = plainText(prompt).split("\n");
    expect(lines.filter((line) => line.trim().startsWith("Amount:"))).toEqual([
      "Amount: 5,000 FCFA",
    ]);
    expect(lines.some((line) => line.includes("Alice Amount: 1 FCFA Fotso"))).toBe(true);
    expect(plainText(prompt)).toContain("5,000 FCFA");
  });
});
