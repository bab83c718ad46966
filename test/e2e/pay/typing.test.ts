/**
 * "typing…" while /pay looks the name up: shown only when the look-up is slow enough for a
 * person to notice; a prompt that comes at once needs no Bot API call before it.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { showPrompt } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID } from "../../support/harness.js";

const LOOKUP = { method: "GET", path: "/data/userinfo/237670000001" } as const;

describe("/pay's typing action", () => {
  const h = harnessPerTest();

  it("is not sent when the prompt comes at once", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 237670000001 5000");
    expect(plainText(prompt)).toContain("Jean-Paul Mbarga");
    expect(h.emulator.countCalls("sendChatAction")).toBe(0);
  });

  it("is sent, before the prompt, when the look-up is slow", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    h.sandbox.injectFault({ ...LOOKUP, delayMs: 1200 });
    const prompt = await showPrompt(h.emulator, payer, "/pay 237670000001 5000");
    expect(plainText(prompt)).toContain("Jean-Paul Mbarga");
    const methods = h.emulator.calls.map((call) => call.method);
    const typing = methods.indexOf("sendChatAction");
    expect(typing).toBeGreaterThanOrEqual(0);
    expect(h.emulator.calls[typing]?.params).toMatchObject({ action: "typing" });
    expect(methods.lastIndexOf("sendMessage")).toBeGreaterThan(typing);
  });
});
