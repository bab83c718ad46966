/**
 * Batch files that must not hurt: a 999 KB file of blank lines is read without stopping
 * other chats, a file of a million short lines stops at the row cap, uploads per person
 * are limited, a download over the limit is refused when Telegram leaves out the file's
 * size, and a comma-separated `5,000` (or a row wider than its header) is named with its
 * row in the payer's language. Nothing is stored for any of them.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";

const NOTHING_STORED = "Nothing was stored.";

describe("batch files that must not stop the bot", () => {
  const h = harnessPerTest({ env: { BATCH_MAX_ROWS: "10" } });

  it("answers another person's /help while a 999 KB file of blank lines is being read", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const order: string[] = [];
    h.emulator.on("message", (message: SentMessage) => {
      if (message.chatId === admin.id) order.push("help");
      if (message.chatId === payer.id) order.push("file");
    });
    // The other person asks for /help once the bot holds the whole file.
    h.emulator.once("download", () => void admin.sendText("/help"));
    const helped = h.emulator.waitForMessage((m) => m.chatId === admin.id, 60_000);
    const refused = h.emulator.waitForMessage((m) => m.chatId === payer.id, 60_000);
    const header = "phone,amount\n";
    const blank = Buffer.from(header + "\n".repeat(999_000 - header.length));
    await payer.uploadDocument("blank.csv", "text/csv", blank);
    expect(plainText(await helped)).toContain("Mobile money payouts");
    expect(plainText(await refused)).toBe(`The file has no rows to pay. ${NOTHING_STORED}`);
    // The /help answer came while the file was still being read, not after it.
    expect(order.slice(0, 2)).toEqual(["help", "file"]);
    expect(await h.app.stores.batches.list({ limit: 5 })).toEqual([]);
  });

  it("stops reading a file of a million short lines at the row cap", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "fr" });
    const answer = h.emulator.waitForMessage((m) => m.chatId === payer.id, 60_000);
    const lines = Buffer.from(`téléphone;montant\n${"1\n".repeat(499_000)}`);
    await payer.uploadDocument("court.csv", "text/csv", lines);
    expect(plainText(await answer)).toBe(
      "Le fichier a plus de 10 lignes, le maximum pour un lot. Découpez-le en fichiers plus petits. Rien n’a été enregistré.",
    );
    expect(await h.app.stores.batches.list({ limit: 5 })).toEqual([]);
  });

  it("reads at most five files a minute from one person, and says so", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const bad = Buffer.from("numero,somme\n670000001,1000\n");
    for (let upload = 0; upload < 5; upload++) {
      const answer = h.emulator.waitForMessage((m) => m.chatId === payer.id, 10_000);
      await payer.uploadDocument(`bad-${upload}.csv`, "text/csv", bad);
      expect(plainText(await answer)).toContain("The file has no amount column.");
    }
    const sixth = h.emulator.waitForMessage((m) => m.chatId === payer.id, 10_000);
    const downloads = h.emulator.countCalls("getFile");
    await payer.uploadDocument("bad-5.csv", "text/csv", bad);
    expect(plainText(await sixth)).toBe(
      `You sent 5 files in the last minute, the most I read. Send it again in a minute. ${NOTHING_STORED}`,
    );
    // The sixth file was not even fetched.
    expect(h.emulator.countCalls("getFile")).toBe(downloads);
    // Someone else's file is read meanwhile.
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const other = h.emulator.waitForMessage((m) => m.chatId === admin.id, 10_000);
    await admin.uploadDocument("bad.csv", "text/csv", bad);
    expect(plainText(await other)).toContain("The file has no amount column.");
  });
});

describe("a download over the limit when Telegram leaves out the file's size", () => {
  const h = harnessPerTest();

  it("is refused as too big, never read truncated", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    // 1,000,000 bytes of well-formed rows, then more: read only up to the limit, it would
    // look like a complete file of payable rows.
    const row = "670000001,1000\n";
    const rows = Math.ceil(1_100_000 / row.length);
    const file = Buffer.from(`phone,amount\n${row.repeat(rows)}`);
    const answer = h.emulator.waitForMessage((m) => m.chatId === payer.id, 20_000);
    await payer.uploadDocument("big.csv", "text/csv", file, undefined, { omitFileSize: true });
    expect(plainText(await answer)).toBe(
      `This file is over 1 MB. Split it into smaller files. ${NOTHING_STORED}`,
    );
    expect(await h.app.stores.batches.list({ limit: 5 })).toEqual([]);
  });
});

describe("a comma-separated file with thousands written with a comma", () => {
  const h = harnessPerTest();

  it("names the row whose amount 5,000 was split into two cells, in French", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "fr" });
    const answer = h.emulator.waitForMessage((m) => m.chatId === payer.id, 10_000);
    const file = "phone,amount,note\n670000001,1000,ok\n690000001,5,000\n";
    await payer.uploadDocument("virgule.csv", "text/csv", Buffer.from(file));
    expect(plainText(await answer)).toBe(
      "Ligne 3 : le montant « 5,000 » est coupé par sa virgule. Écrivez-le sans séparateur (5000) ou entre guillemets, puis renvoyez le fichier. Rien n’a été enregistré.",
    );
    expect(await h.app.stores.batches.list({ limit: 5 })).toEqual([]);
  });

  it("names a row with more cells than the header, in English", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const answer = h.emulator.waitForMessage((m) => m.chatId === payer.id, 10_000);
    const file = "phone,amount\n670000001,1000\n690000001,2000,bonus\n";
    await payer.uploadDocument("wide.csv", "text/csv", Buffer.from(file));
    expect(plainText(await answer)).toBe(
      `Row 3 has 3 cells, but the header has 2. Put a cell holding a comma in quotes, or add its column to the header. ${NOTHING_STORED}`,
    );
    expect(await h.app.stores.batches.list({ limit: 5 })).toEqual([]);
  });
});
