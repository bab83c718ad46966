import { describe, expect, it } from "vitest";
import { merchantTag } from "../../../../src/bot/telegram/merchant-tag.js";

function tagFor(namedChats: number[]) {
  const remembered: Array<[number, number]> = [];
  const tag = merchantTag({
    name: "Bravo & Sons",
    named: async (chatId) => namedChats.includes(chatId),
    remember: async (chatId, messageId) => {
      remembered.push([chatId, messageId]);
    },
    warn: () => {},
  });
  return { tag, remembered };
}

const keyboard = { inline_keyboard: [[{ text: "Confirm", callback_data: "c:abc" }]] };

describe("merchantTag", () => {
  it("heads a message to a person of several merchants with the merchant's name, escaped", async () => {
    const { tag } = tagFor([42]);
    expect(
      await tag.before("sendMessage", { chat_id: 42, text: "<b>Paid</b>", parse_mode: "HTML" }),
    ).toEqual({ text: "🏢 <b>Bravo &amp; Sons</b>\n<b>Paid</b>" });
    expect(await tag.before("editMessageText", { chat_id: 42, text: "Pending" })).toEqual({
      text: "🏢 Bravo & Sons\nPending",
    });
  });

  it("leaves messages to a person of one merchant, and calls that carry no text, as they are", async () => {
    const { tag } = tagFor([42]);
    expect(await tag.before("sendMessage", { chat_id: 7, text: "Paid" })).toBeUndefined();
    expect(await tag.before("answerCallbackQuery", { callback_query_id: "1" })).toBeUndefined();
    expect(await tag.before("deleteMessage", { chat_id: 42, message_id: 3 })).toBeUndefined();
  });

  it("names the merchant on a document, with or without a caption", async () => {
    const { tag } = tagFor([42]);
    expect(await tag.before("sendDocument", { chat_id: 42, caption: "Export" })).toEqual({
      caption: "🏢 Bravo & Sons\nExport",
    });
    expect(await tag.before("sendDocument", { chat_id: 42 })).toEqual({
      caption: "🏢 Bravo & Sons",
    });
  });

  it("remembers every message sent or edited with buttons as the merchant's, and no other", async () => {
    const { tag, remembered } = tagFor([]);
    await tag.after(
      "sendMessage",
      { chat_id: 42, text: "x", reply_markup: keyboard },
      { message_id: 10, chat: { id: 42 } },
    );
    await tag.after(
      "editMessageReplyMarkup",
      { chat_id: 42, message_id: 11, reply_markup: keyboard },
      true,
    );
    await tag.after("sendMessage", { chat_id: 42, text: "no buttons" }, { message_id: 12 });
    expect(remembered).toEqual([
      [42, 10],
      [42, 11],
    ]);
  });
});
