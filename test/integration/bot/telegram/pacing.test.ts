/**
 * The bot's Telegram client keeps Telegram's limits, checked against the emulator with
 * Telegram's flood control turned on (a call past a limit is refused with 429, and a chat
 * written to before its `retry_after` is recorded as early): one group's messages a
 * minute, notices across chats a second, and a 429's `retry_after` waited out.
 */
import { TelegramError } from "telegraf";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TelegramPacer } from "../../../../src/bot/telegram/pacing.js";
import { boundedTelegram } from "../../../../src/bot/telegram/transport.js";
import {
  startTelegramEmulator,
  type TelegramEmulator,
} from "../../../../src/dev/telegram-emulator/index.js";

const GROUP = -1_000_000_000_777;

let emulator: TelegramEmulator;

beforeEach(async () => {
  emulator = await startTelegramEmulator();
  emulator.group(GROUP, "Payroll");
});

afterEach(async () => {
  await emulator.close();
});

/** How the call ended: "sent", or the error code and retry_after of a refusal. */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "sent";
  } catch (error) {
    if (error instanceof TelegramError) return `${error.code} ${error.parameters?.retry_after}`;
    throw error;
  }
}

describe("Telegram's limits, kept by the bot's client", () => {
  it("holds a group to its messages a window, however many are asked for at once", async () => {
    // Telegram's minute scaled down to 2 s, so the test needs seconds; the bot keeps under
    // Telegram's count by the same margin as with the real figures (18 where it allows 20).
    emulator.floodControl({ groupPerWindow: 5, groupWindowMs: 2000 });
    const pacer = new TelegramPacer({ groupPerWindow: 4, groupWindowMs: 2000, groupGapMs: 100 });
    const telegram = boundedTelegram(emulator.token, emulator.apiRoot, 10_000, { pacer });
    const first = await telegram.sendMessage(GROUP, "progress 0");

    const edits = Array.from({ length: 9 }, (_, i) =>
      outcome(telegram.editMessageText(GROUP, first.message_id, undefined, `progress ${i + 1}`)),
    );

    expect(await Promise.all(edits)).toEqual(Array(9).fill("sent"));
    expect(emulator.floodRefusals).toEqual([]);
    expect(emulator.busiestWindow(2000, GROUP)).toBeLessThanOrEqual(5);
    const message = emulator.message(GROUP, first.message_id);
    expect(message && emulator.plainText(message)).toBe("progress 9");
  });

  it("keeps a group at one message a second with Telegram's figures, and refuses at once what would wait too long", async () => {
    emulator.floodControl({ groupPerWindow: 20 });
    const telegram = boundedTelegram(emulator.token, emulator.apiRoot, 10_000, {
      pacer: new TelegramPacer(),
    });

    const sends = Array.from({ length: 8 }, (_, i) =>
      outcome(telegram.sendMessage(GROUP, `notice ${i}`)),
    );

    // One a second, and a call is held at most 5 s: six go out, two are refused by the bot
    // itself, saying when the next turn comes, and never reach Telegram.
    expect(await Promise.all(sends)).toEqual([
      "sent",
      "sent",
      "sent",
      "sent",
      "sent",
      "sent",
      "429 6",
      "429 6",
    ]);
    expect(emulator.countCalls("sendMessage")).toBe(6);
    // A second apart as sent; as received, within a network's jitter of it.
    expect(emulator.busiestWindow(900, GROUP)).toBe(1);
    expect(emulator.floodRefusals).toEqual([]);
  });

  it("paces notices to many people under 30 a second", async () => {
    emulator.floodControl({ perSecond: 30 });
    const people = Array.from({ length: 70 }, (_, i) => emulator.user({ id: 5000 + i }));
    const notices = boundedTelegram(emulator.token, emulator.apiRoot, 10_000, {
      pacer: new TelegramPacer(),
      broadcast: true,
    });

    const sent = await Promise.all(
      people.map((person) => outcome(notices.sendMessage(person.id, "Paid"))),
    );

    expect(sent).toEqual(Array(70).fill("sent"));
    expect(emulator.floodRefusals).toEqual([]);
    expect(emulator.busiestWindow(1000)).toBeLessThanOrEqual(30);
    for (const person of people) expect(emulator.messages(person.id)).toHaveLength(1);
  });

  it("does not write to a chat again before a 429's retry_after has passed, and others go on", async () => {
    emulator.floodControl({});
    const payer = emulator.user({ id: 4242 });
    const other = emulator.user({ id: 4343 });
    const telegram = boundedTelegram(emulator.token, emulator.apiRoot, 10_000, {
      pacer: new TelegramPacer(),
    });
    emulator.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 2",
      retry_after: 2,
    });

    expect(await outcome(telegram.sendMessage(payer.id, "first"))).toBe("429 2");
    const again = outcome(telegram.sendMessage(payer.id, "again"));
    const elsewhere = outcome(telegram.sendMessage(other.id, "elsewhere"));

    expect(await Promise.all([again, elsewhere])).toEqual(["sent", "sent"]);
    // Flood control lists any call to the payer's chat before its retry_after as early.
    expect(emulator.floodRefusals).toEqual([]);
    const order = emulator.calls
      .filter((call) => call.method === "sendMessage")
      .map((call) => call.params.text);
    expect(order).toEqual(["first", "elsewhere", "again"]);
  });

  it("sends a notice to a free chat before one that waits out its own chat's 429", async () => {
    emulator.floodControl({});
    const payer = emulator.user({ id: 4242 });
    const other = emulator.user({ id: 4343 });
    // The notices' client: held to the rate across chats, whose slots every chat shares.
    const notices = boundedTelegram(emulator.token, emulator.apiRoot, 10_000, {
      pacer: new TelegramPacer(),
      broadcast: true,
    });
    emulator.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 2",
      retry_after: 2,
    });
    expect(await outcome(notices.sendMessage(payer.id, "first"))).toBe("429 2");

    // "again" takes its slot across chats 2 s ahead; "elsewhere", asked after it, takes a
    // free slot before it rather than the next one after it.
    const again = outcome(notices.sendMessage(payer.id, "again"));
    const elsewhere = outcome(notices.sendMessage(other.id, "elsewhere"));
    expect(await Promise.race([again.then(() => "again"), elsewhere.then(() => "elsewhere")])).toBe(
      "elsewhere",
    );

    expect(await Promise.all([again, elsewhere])).toEqual(["sent", "sent"]);
    expect(emulator.floodRefusals).toEqual([]);
  });

  it("sends a notice to a person before a group's notice that waits for the group's turn", async () => {
    emulator.floodControl({});
    const person = emulator.user({ id: 4242 });
    const notices = boundedTelegram(emulator.token, emulator.apiRoot, 10_000, {
      pacer: new TelegramPacer(),
      broadcast: true,
    });
    expect(await outcome(notices.sendMessage(GROUP, "alert 1"))).toBe("sent");

    // The group's next turn is a second away (one message a second in a group).
    const second = outcome(notices.sendMessage(GROUP, "alert 2"));
    const paid = outcome(notices.sendMessage(person.id, "Paid"));

    expect(await Promise.all([second, paid])).toEqual(["sent", "sent"]);
    const order = emulator.calls
      .filter((call) => call.method === "sendMessage")
      .map((call) => call.params.text);
    expect(order).toEqual(["alert 1", "Paid", "alert 2"]);
    expect(emulator.floodRefusals).toEqual([]);
  });

  it("refuses at once, without calling Telegram, while a long retry_after runs", async () => {
    emulator.floodControl({});
    const payer = emulator.user({ id: 4242 });
    const telegram = boundedTelegram(emulator.token, emulator.apiRoot, 10_000, {
      pacer: new TelegramPacer(),
    });
    emulator.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 40",
      retry_after: 40,
    });

    expect(await outcome(telegram.sendMessage(payer.id, "first"))).toBe("429 40");
    expect(await outcome(telegram.sendMessage(payer.id, "again"))).toBe("429 40");
    expect(await outcome(telegram.editMessageText(payer.id, 1, undefined, "edit"))).toBe("429 40");

    expect(emulator.countCalls("sendMessage")).toBe(1);
    expect(emulator.countCalls("editMessageText")).toBe(0);
    expect(emulator.floodRefusals).toEqual([]);
  });

  it("says a call goes at once only when it takes no slot and no 429 holds it (goesAtOnce)", () => {
    let nowMs = 1_000_000;
    const pacer = new TelegramPacer({ now: () => nowMs });
    const answer = { callback_query_id: "1" };
    expect(pacer.goesAtOnce("answerCallbackQuery", answer)).toBe(true);
    // A message call takes a slot: it is never sent outside the pacer's turns.
    expect(pacer.goesAtOnce("sendMessage", { chat_id: 5, text: "x" })).toBe(false);
    // A 429 of one chat holds that chat's calls, not a call that names no chat.
    pacer.refused({ chat_id: 5 }, 2);
    expect(pacer.goesAtOnce("sendChatAction", { chat_id: 5 })).toBe(false);
    expect(pacer.goesAtOnce("answerCallbackQuery", answer)).toBe(true);
    // A 429 of a call that named no chat holds the whole bot until its retry_after passed.
    pacer.refused(answer, 1);
    expect(pacer.goesAtOnce("answerCallbackQuery", answer)).toBe(false);
    nowMs += 1000;
    expect(pacer.goesAtOnce("answerCallbackQuery", answer)).toBe(true);
  });
});
