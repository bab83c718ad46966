/**
 * Batch rows against what was paid before (DUPLICATE_WINDOW_MINUTES): a row repeating a
 * single payout or a row of another batch is marked in the preview and its file (when, by
 * whom, how it stands) and left out; the same file sent again says so at the top; the
 * payer can still include the marked rows with a button of their own, and only then are
 * they paid.
 */
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { payAndConfirm } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID } from "../../support/harness.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;
const FILE = Buffer.from("phone,amount\n670000001,1000\n690000001,2000\n");

/** A preview file's rows; French files use `;`. */
function previewRows(bytes: Buffer | undefined, delimiter = ","): string[][] {
  return parse(bytes ?? Buffer.alloc(0), { bom: true, delimiter }) as string[][];
}

describe("batch rows paid before", () => {
  const h = harnessPerTest();

  it("leaves out rows paid before, says the file was sent before, and pays them only when included", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const isPreview = (m: SentMessage) =>
      m.chatId === payer.id && plainText(m).includes("is checked");
    const isFinished = (m: SentMessage) =>
      m.chatId === payer.id && plainText(m).includes("is finished");
    // A single payout first: 1,000 to 670000001, paid.
    await payAndConfirm(h.emulator, payer, "/pay 670000001 1000", "Completed");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);

    // The file repeats it in its row 2: marked and left out; row 3 is paid.
    let preview = h.emulator.waitForMessage(isPreview, 20_000);
    await payer.uploadDocument("first.csv", "text/csv", FILE);
    const first = await preview;
    const firstText = plainText(first);
    expect(firstText).toContain("To pay: 1 row, 2,000 FCFA in all.");
    expect(firstText).toMatch(
      /• row 2: possible duplicate: 1,000 FCFA to this number on .+ by Paul, Completed/,
    );
    expect(firstText).not.toContain("This file is the same");
    const firstFile = previewRows(h.emulator.documents(payer.id).at(-1)?.bytes);
    expect(firstFile[1]?.[9]).toMatch(/^possible duplicate: .+ by Paul, Completed/);
    let finished = h.emulator.waitForMessage(isFinished, 30_000);
    await payer.pressButton(first, "✅ Confirm batch");
    await finished;
    expect(h.sandbox.countRequests(DISBURSE)).toBe(2);
    const [firstBatch] = await h.app.stores.batches.list({ limit: 1 });

    // The same file again: it says so at the top, both rows are marked, none is paid yet.
    preview = h.emulator.waitForMessage(isPreview, 20_000);
    await payer.uploadDocument("again.csv", "text/csv", FILE);
    const second = await preview;
    const secondText = plainText(second);
    expect(secondText.split("\n")[0]).toBe(
      `⚠️ This file is the same as batch ${firstBatch?.id}, sent before by Paul.`,
    );
    expect(secondText).toContain("Skipped: 2 rows.");
    expect(secondText).toMatch(/• row 3: possible duplicate: 2,000 FCFA .+ by Paul, Completed/);
    expect(h.emulator.documents(payer.id).at(-1)?.fileName).toMatch(/-preview\.csv$/);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(2);

    // Including them is the payer's own, separate choice; then Confirm pays them.
    preview = h.emulator.waitForMessage(
      (m) => isPreview(m) && plainText(m).includes("To pay: 2 rows"),
      20_000,
    );
    const include = await payer.pressButton(second, "Include 2 possible duplicates");
    expect((await h.emulator.waitForCallbackAnswer(include.callbackQueryId)).text).toBe(
      "2 possible duplicates included: check the new preview, then Confirm.",
    );
    const third = await preview;
    expect(plainText(third)).toContain("To pay: 2 rows, 3,000 FCFA in all.");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(2);
    finished = h.emulator.waitForMessage(isFinished, 30_000);
    await payer.pressButton(third, "✅ Confirm batch");
    expect(plainText(await finished)).toContain("Paid: 2 rows");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(4);
  });

  it("says it in French: the row, when, by whom, how it stands, and the button", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "fr" });
    await payAndConfirm(h.emulator, payer, "/pay 690000001 2000", "Effectué");
    const preview = h.emulator.waitForMessage(
      (m) => m.chatId === payer.id && plainText(m).includes("vérification terminée"),
      20_000,
    );
    await payer.uploadDocument("paie.csv", "text/csv", FILE);
    const shown = await preview;
    const text = plainText(shown);
    expect(text).toContain("À payer : 1 ligne, 1\u202F000 FCFA au total.");
    expect(text).toMatch(
      /• ligne 3\u202F: doublon possible\u202F: 2\u202F000\u00A0FCFA vers ce numéro le .+ par Paul, Effectué/,
    );
    const buttons = (shown.replyMarkup ?? []).flat().map((button) => button.text);
    expect(buttons).toEqual(["✅ Confirmer le lot", "✖️ Annuler", "Inclure 1 doublon possible"]);
    const file = previewRows(h.emulator.documents(payer.id).at(-1)?.bytes, ";");
    expect(file[2]?.[9]).toMatch(/^doublon possible\u202F: .+ par Paul, Effectué$/);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
  });
});
