/**
 * Who may do what, end to end: strangers are refused with their id and nothing else,
 * viewers read but do not pay, groups only get a pointer to a private chat, /start and
 * /help list what the role allows, and the command menu is registered in both languages.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { isNewReplyIn, sendAndWait } from "../../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  harnessPerTest,
  PAYER_ID,
  STRANGER_ID,
  VIEWER_ID,
} from "../../support/harness.js";

const USERINFO = /^\/data\/userinfo\//;
const GROUP_ID = -4_000_123;

describe("access rules, end to end", () => {
  const h = harnessPerTest();

  async function reply(userId: number, text: string): Promise<SentMessage> {
    return sendAndWait(h.emulator, h.emulator.user({ id: userId, languageCode: "en" }), text);
  }

  function expectNoPaymentTraffic(): void {
    expect(h.sandbox.countRequests({ method: "GET", path: USERINFO })).toBe(0);
    expect(h.sandbox.countRequests({ method: "POST" })).toBe(0);
  }

  it("refuses a stranger with their numeric id and does nothing else", async () => {
    const refusal = await reply(STRANGER_ID, "/pay 237670000001 5000");

    expect(plainText(refusal)).toBe(
      `Sorry, you are not allowed to use this bot. Your Telegram id is ${STRANGER_ID}: give it to an admin if you need access.`,
    );
    expect(refusal.replyMarkup ?? []).toHaveLength(0);
    // A second update: by the time it is answered the first was handled completely.
    const again = await reply(STRANGER_ID, "/start");
    expect(plainText(again)).toContain(String(STRANGER_ID));
    expect(h.emulator.messages(STRANGER_ID)).toHaveLength(2);
    expectNoPaymentTraffic();
    expect(await h.app.stores.sessions.getDialog(STRANGER_ID)).toBeNull();
    // Nothing of a stranger is kept, not even the name; a staff member's is.
    await reply(VIEWER_ID, "/help");
    const names = await h.app.stores.profiles.getMany([STRANGER_ID, VIEWER_ID]);
    expect([...names.keys()]).toEqual([VIEWER_ID]);
  });

  it("lists in /help what the role may do: schedules and the PIN for those who pay, the dashboard for all", async () => {
    const payer = plainText(await reply(PAYER_ID, "/help"));
    expect(payer).toContain("/schedule WHEN RECIPIENT AMOUNT");
    expect(payer).toContain("/dashboard");
    expect(payer).toContain("/pin –");
    expect(payer).not.toContain("/pin reset");
    const viewer = plainText(await reply(VIEWER_ID, "/help"));
    expect(viewer).toContain("/dashboard");
    expect(viewer).not.toContain("/schedule WHEN");
    expect(viewer).not.toContain("/pin");
  });

  it("refuses a stranger inside what would be a dialog", async () => {
    await reply(STRANGER_ID, "/pay");
    const refusal = await reply(STRANGER_ID, "670000001");

    expect(plainText(refusal)).toContain(String(STRANGER_ID));
    expect(await h.app.stores.sessions.getDialog(STRANGER_ID)).toBeNull();
    expectNoPaymentTraffic();
  });

  it("tells a viewer they cannot pay, sends nothing, and still answers /availability", async () => {
    const refusal = await reply(VIEWER_ID, "/pay 670000001 5000");
    expect(plainText(refusal)).toBe("Your role (viewer) can read payments but cannot make them.");

    const dialog = await reply(VIEWER_ID, "/pay");
    expect(plainText(dialog)).toContain("cannot make them");
    expect(await h.app.stores.sessions.getDialog(VIEWER_ID)).toBeNull();
    expectNoPaymentTraffic();

    const availability = await reply(VIEWER_ID, "/availability");
    expect(plainText(availability)).toContain("Operators right now");
    expect(plainText(availability)).toContain("MTN MoMo");
  });

  it("answers /start and /help in a group with a pointer to a private chat, and /pay not at all", async () => {
    const group = h.emulator.group(GROUP_ID);
    const payer = h.emulator.user({ id: PAYER_ID, languageCode: "en" });
    const inGroup = isNewReplyIn(GROUP_ID);

    const started = h.emulator.waitForMessage(inGroup);
    await payer.sendText("/start", { chat: group });
    expect(plainText(await started)).toBe(
      "Money details do not belong in groups: talk to me in a private chat, @emulated_bot.",
    );

    const helped = h.emulator.waitForMessage(inGroup);
    await payer.sendText("/pay 670000001 5000", { chat: group });
    await payer.sendText("/help@emulated_bot", { chat: group });
    expect(plainText(await helped)).toContain("private chat, @emulated_bot");

    // /pay came before /help in the same chat, so it was handled (silently) first.
    expect(h.emulator.messages(GROUP_ID)).toHaveLength(2);
    expect(h.emulator.messages(PAYER_ID)).toHaveLength(0);
    expectNoPaymentTraffic();
  });

  it("lists what a payer may do in /start: /pay, not /staff", async () => {
    const text = plainText(await reply(PAYER_ID, "/start"));

    expect(text).toContain("your role: payer");
    expect(text).toContain("/pay NUMBER AMOUNT");
    expect(text).toContain("/collect");
    expect(text).toContain("/status");
    expect(text).not.toContain("/staff");
    expect(text).not.toContain("/unknown");
  });

  it("lists the admin commands for an admin in /help", async () => {
    const text = plainText(await reply(ADMIN_ID, "/help"));

    expect(text).toContain("your role: admin");
    expect(text).toContain("You will get a message here when each of your payments completes.");
    expect(text).toContain("/pay");
    expect(text).toContain("/staff");
    expect(text).toContain("/unknown");
  });

  it("lists only reading commands for a viewer", async () => {
    const text = plainText(await reply(VIEWER_ID, "/help"));

    expect(text).toContain("your role: viewer");
    expect(text).toContain("/status");
    expect(text).toContain("/availability");
    // Viewers export payouts for finance; the audit trail is for admins.
    expect(text).toContain("/export [FROM] [TO]");
    expect(text).not.toContain("/audit");
    expect(text).not.toContain("/pay");
    expect(text).not.toContain("/collect");
    expect(text).not.toContain("/staff");
    // A viewer starts no payment, so is told of none.
    expect(text).not.toContain("You will get a message");
  });

  it("lets an approver pay but not manage staff", async () => {
    const text = plainText(await reply(APPROVER_ID, "/help"));

    expect(text).toContain("your role: approver");
    expect(text).toContain("/pay");
    expect(text).not.toContain("/staff");
  });

  it("registers the command menu in English by default and in French", () => {
    const english = h.emulator.commands();
    const french = h.emulator.commands("fr");

    expect(english.map((c) => c.command)).toEqual(french.map((c) => c.command));
    expect(english.map((c) => c.command)).toEqual(
      expect.arrayContaining(["pay", "collect", "whois", "availability", "cancel", "lang", "help"]),
    );
    expect(english.find((c) => c.command === "pay")?.description).toBe(
      "Send money to a mobile number",
    );
    expect(french.find((c) => c.command === "pay")?.description).toBe(
      "Envoyer de l’argent à un numéro mobile",
    );
    expect(french.find((c) => c.command === "lang")?.description).toBe("Langue\u202F: en ou fr");
    expect(h.emulator.countCalls("setMyCommands")).toBe(2);
  });
});
