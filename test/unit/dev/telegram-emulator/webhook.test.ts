import type { Update } from "telegraf/types";
import { describe, expect, it } from "vitest";
import { orderingKey } from "../../../../src/dev/telegram-emulator/webhook.js";

const user = { id: 7, is_bot: false, first_name: "Ann" };
const chat = { id: -100, type: "group" as const, title: "Team" };
const message = { message_id: 1, date: 0, chat, from: user, text: "hi" };

describe("orderingKey", () => {
  it("keys a message by its chat, not its sender", () => {
    const update: Update = { update_id: 1, message };
    expect(orderingKey(update)).toBe("chat:-100");
  });

  it("keys a button press by the chat of the message it is on", () => {
    const update: Update = {
      update_id: 2,
      callback_query: { id: "q", from: user, chat_instance: "c", data: "x", message },
    };
    expect(orderingKey(update)).toBe("chat:-100");
  });

  it("keys an update with no chat by its sender", () => {
    const update: Update = {
      update_id: 3,
      inline_query: { id: "q", from: user, query: "", offset: "" },
    };
    expect(orderingKey(update)).toBe("user:7");
  });

  it("leaves an update with neither chat nor sender unordered", () => {
    const update: Update = {
      update_id: 4,
      poll: {
        id: "p",
        question: "?",
        options: [],
        total_voter_count: 0,
        is_closed: true,
        is_anonymous: true,
        type: "regular",
        allows_multiple_answers: false,
      },
    };
    expect(orderingKey(update)).toBeUndefined();
  });
});
