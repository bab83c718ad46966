/**
 * The emulator's sendPhoto and Mini App buttons, through Telegraf as the bot sends them:
 * a PNG upload is kept with the size its header declares, anything else is refused as
 * Telegram refuses it; `web_app` buttons need https and a private chat.
 */

import { Resvg } from "@resvg/resvg-js";
import { Telegraf, TelegramError } from "telegraf";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  startTelegramEmulator,
  type TelegramEmulator,
} from "../../../../src/dev/telegram-emulator/index.js";

let emulator: TelegramEmulator;
let bot: Telegraf;

beforeEach(async () => {
  emulator = await startTelegramEmulator({ maxPollWaitMs: 200 });
  bot = new Telegraf(emulator.token, { telegram: { apiRoot: emulator.apiRoot } });
});

afterEach(async () => {
  await emulator.close();
});

function png(width: number, height: number): Buffer {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="#f2b705"/></svg>`;
  return new Resvg(svg, { fitTo: { mode: "original" } }).render().asPng();
}

async function refusal(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof TelegramError)) throw new Error(`expected a TelegramError, got ${error}`);
  return error.description;
}

describe("the emulator's photos", () => {
  it("keeps an uploaded PNG with its size and caption, and answers a Message with photo sizes", async () => {
    const user = emulator.user({ id: 501, firstName: "Awa" });
    await user.sendText("/start");
    const sent = await bot.telegram.sendPhoto(
      user.id,
      { source: png(320, 180), filename: "chart.png" },
      { caption: "<b>Week</b>", parse_mode: "HTML" },
    );
    expect(sent.photo).toEqual([
      expect.objectContaining({ width: 320, height: 180, file_size: expect.any(Number) }),
    ]);
    expect(sent.caption).toBe("Week");
    const [photo] = emulator.photos(user.id);
    expect(photo).toMatchObject({ width: 320, height: 180, caption: "<b>Week</b>" });
    expect(photo?.bytes.subarray(1, 4).toString()).toBe("PNG");
    // Sent again by its file_id, as Telegram allows.
    const again = await bot.telegram.sendPhoto(user.id, sent.photo[0]?.file_id ?? "");
    expect(again.photo[0]).toMatchObject({ width: 320, height: 180 });
    // A photo has no text to edit.
    expect(
      await refusal(bot.telegram.editMessageText(user.id, sent.message_id, undefined, "x")),
    ).toBe("Bad Request: there is no text in the message to edit");
  });

  it("refuses what is not an image, and a photo whose sides are too large", async () => {
    const user = emulator.user({ id: 502, firstName: "Paul" });
    await user.sendText("/start");
    const text = { source: Buffer.from("not an image"), filename: "chart.png" };
    expect(await refusal(bot.telegram.sendPhoto(user.id, text))).toBe(
      "Bad Request: IMAGE_PROCESS_FAILED",
    );
    expect(await refusal(bot.telegram.sendPhoto(user.id, { source: png(9000, 2000) }))).toBe(
      "Bad Request: PHOTO_INVALID_DIMENSIONS",
    );
    expect(emulator.photos(user.id)).toEqual([]);
  });
});

describe("the emulator's Mini App buttons", () => {
  const keyboard = (url: string) => ({
    reply_markup: { inline_keyboard: [[{ text: "Open", web_app: { url } }]] },
  });

  it("keeps an https web_app button in a private chat, with its URL", async () => {
    const user = emulator.user({ id: 503, firstName: "Ama" });
    await user.sendText("/start");
    await bot.telegram.sendMessage(user.id, "Open it", keyboard("https://pay.example.test/app/"));
    const [message] = emulator.messages(user.id).filter((m) => m.text === "Open it");
    expect(message?.replyMarkup).toEqual([
      [{ text: "Open", web_app: { url: "https://pay.example.test/app/" } }],
    ]);
  });

  it("keeps a web_app button over plain http to a loopback host: a page on this machine", async () => {
    const user = emulator.user({ id: 505, firstName: "Ama" });
    await user.sendText("/start");
    const urls = [
      "http://127.0.0.1:8080/app/?step_up=confirm.x",
      "http://localhost:8080/app/",
      "http://[::1]:8080/app/",
    ];
    for (const url of urls) await bot.telegram.sendMessage(user.id, `Open ${url}`, keyboard(url));
    const kept = emulator.messages(user.id).filter((m) => m.text?.startsWith("Open "));
    expect(kept.map((m) => m.replyMarkup)).toEqual(
      urls.map((url) => [[{ text: "Open", web_app: { url } }]]),
    );
    await bot.telegram.setChatMenuButton({
      chatId: user.id,
      menuButton: { type: "web_app", text: "Dashboard", web_app: { url: urls[0] ?? "" } },
    });
    expect(await bot.telegram.getChatMenuButton({ chatId: user.id })).toMatchObject({
      web_app: { url: urls[0] },
    });
  });

  it("refuses a web_app button over plain http to any other host, or in a group", async () => {
    const user = emulator.user({ id: 504, firstName: "Ama" });
    await user.sendText("/start");
    for (const url of [
      "http://pay.example.test/",
      "http://192.168.1.10:8080/app/",
      "http://127.0.0.1.example.test/app/",
    ]) {
      expect(await refusal(bot.telegram.sendMessage(user.id, "x", keyboard(url)))).toBe(
        "Bad Request: BUTTON_URL_INVALID",
      );
    }
    expect(
      await refusal(
        bot.telegram.setChatMenuButton({
          chatId: user.id,
          menuButton: {
            type: "web_app",
            text: "Dashboard",
            web_app: { url: "http://pay.example.test/" },
          },
        }),
      ),
    ).toBe("Bad Request: BUTTON_URL_INVALID");
    const group = emulator.group(-1009876543210, "Finance");
    expect(
      await refusal(bot.telegram.sendMessage(group.id, "x", keyboard("https://pay.example.test/"))),
    ).toBe("Bad Request: BUTTON_TYPE_INVALID");
  });
});
