/**
 * Batch payouts end to end, through the emulator's document upload and getFile: a mixed
 * French file is checked (good rows, a bad number, no account, a duplicate, a name that
 * does not match), previewed with its file, confirmed once, each payable row paid once,
 * and summed up with a results file; Cancel pays nothing; a file over the limits is
 * refused and nothing is stored.
 */
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { sendAndWait } from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;

/** Excel's French export: a BOM, `;`, CRLF, French headers, `1 000` amounts. */
const FRENCH_FILE = `\uFEFF${[
  "téléphone;montant;motif;nom",
  "670000001;1 000;Salaire mars;Jean-Paul Mbarga",
  "690000001;2 000;;",
  "670000004;1 500;;",
  "12345;1 000;;",
  "670000001;1 000;;",
  "670000002;3 000;;Paul Biya",
  "670000002;2 500;Prime;",
].join("\r\n")}\r\n`;

function readCsv(bytes: Buffer): string[][] {
  return parse(bytes, { bom: true, delimiter: ";" }) as string[][];
}

describe("batch payouts, end to end", () => {
  const h = harnessPerTest({ env: { BATCH_MAX_ROWS: "10" } });

  it("checks a mixed file, previews it, pays each payable row once, and reports", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "fr" });
    const preview = h.emulator.waitForMessage(
      (m) => plainText(m).includes("vérification terminée"),
      20_000,
    );
    await payer.uploadDocument("paie.csv", "text/csv", Buffer.from(FRENCH_FILE));
    const shown = await preview;
    const text = plainText(shown);
    expect(text).toContain("À payer\u202F: 3 lignes, 5\u202F500\u00A0FCFA au total.");
    expect(text).toContain("Écartées\u202F: 4 lignes.");
    expect(text).toContain("• ligne 4\u202F: aucun compte mobile money");
    expect(text).toContain("• ligne 5\u202F: numéro invalide");
    expect(text).toContain("• ligne 6\u202F: même numéro et même montant que la ligne 2");
    expect(text).toContain("• ligne 7\u202F: le nom enregistré est Brice Fotso, pas Paul Biya");
    // Nothing is paid before Confirm.
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);

    const [previewFile] = h.emulator.documents(payer.id);
    expect(previewFile?.fileName).toMatch(/-preview\.csv$/);
    const previewRows = readCsv(previewFile?.bytes ?? Buffer.alloc(0));
    expect(previewRows[0]?.[0]).toBe("ligne");
    expect(previewRows.slice(1).map((row) => [row[0], row[2], row[7]])).toEqual([
      ["2", "Jean-Paul Mbarga", "à payer"],
      ["3", "Aïcha Nkoulou", "à payer"],
      ["4", "", "écartée"],
      ["5", "", "écartée"],
      // A repeat is not looked up: it costs no API call.
      ["6", "", "écartée"],
      ["7", "Brice Fotso", "écartée"],
      ["8", "Brice Fotso", "à payer"],
    ]);

    const summary = h.emulator.waitForMessage((m) => plainText(m).includes("terminé"), 30_000);
    const press = await payer.pressButton(shown, 0);
    const answer = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
    expect(answer.text).toContain("Confirmé");
    const done = plainText(await summary);
    expect(done).toContain("Payées\u202F: 2 lignes, 3\u202F000\u00A0FCFA");
    expect(done).toContain("Payées 2 · échouées 1 · en cours 0 · inconnues 0 · écartées 4");
    // Each payable row once, none of the others.
    expect(h.sandbox.countRequests(DISBURSE)).toBe(3);
    const bodies = h.sandbox.requests
      .filter((request) => request.path.endsWith("/disburse"))
      .map((request) => request.body as { phoneNumber: string; amount: number })
      .map((body) => `${body.phoneNumber}:${body.amount}`)
      .sort();
    expect(bodies).toEqual(["237670000001:1000", "237670000002:2500", "237690000001:2000"]);

    const results = h.emulator.documents(payer.id).at(-1);
    expect(results?.fileName).toMatch(/-results\.csv$/);
    const resultRows = readCsv(results?.bytes ?? Buffer.alloc(0));
    expect(resultRows.slice(1).map((row) => [row[0], row[7]])).toEqual([
      ["2", "payée"],
      ["3", "payée"],
      ["4", "non payée"],
      ["5", "non payée"],
      ["6", "non payée"],
      ["7", "non payée"],
      ["8", "échouée"],
    ]);
    // Paid rows carry their payment id and fee.
    expect(resultRows[1]?.[8]).not.toBe("");
    expect(Number(resultRows[1]?.[5])).toBeGreaterThan(0);
    // No message per row: the payer's chat has no payout notices.
    const perRow = h.emulator
      .messages(payer.id)
      .filter((m) => /Payment completed|Paiement effectué/.test(plainText(m)));
    expect(perRow).toEqual([]);
    const audit = (await h.app.stores.audit.recent(50)).map((entry) => entry.action);
    expect(audit).toEqual(
      expect.arrayContaining(["batch_upload", "batch_checked", "batch_confirm", "batch_done"]),
    );
    // An admin reads them in /audit, in words.
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const trail = plainText(await sendAndWait(h.emulator, admin, "/audit 20"));
    for (const words of [
      "Batch file received",
      "Batch checked",
      "Batch confirmed",
      "Batch finished",
    ]) {
      expect(trail).toContain(words);
    }
    expect(trail).not.toContain("Other action");
  });

  it("pays nothing after Cancel", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const preview = h.emulator.waitForMessage((m) => plainText(m).includes("is checked"), 20_000);
    const file = "phone,amount\n670000001,1000\n690000001,2000\n";
    await payer.uploadDocument("run.csv", "text/csv", Buffer.from(file));
    const shown = await preview;
    expect(plainText(shown)).toContain("To pay: 2 rows, 3,000 FCFA in all.");
    const press = await payer.pressButton(shown, 1);
    expect((await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).text).toBe(
      "Batch cancelled. Nothing was paid.",
    );
    const [batch] = await h.app.stores.batches.list({ limit: 1 });
    expect(batch?.state).toBe("cancelled");
    // A late Confirm on the same preview is refused.
    const again = await payer
      .pressButton(h.emulator.message(payer.id, shown.messageId) ?? shown, 0)
      .catch(() => null);
    if (again) await h.emulator.waitForCallbackAnswer(again.callbackQueryId);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });

  it("refuses a file over the row limit, naming it, and stores nothing", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const rows = Array.from({ length: 11 }, (_, index) => `6700000${10 + index},1000`);
    const answer = h.emulator.waitForMessage((m) => plainText(m).includes("rows"), 10_000);
    await payer.uploadDocument(
      "big.csv",
      "text/csv",
      Buffer.from(`phone,amount\n${rows.join("\n")}\n`),
    );
    expect(plainText(await answer)).toBe(
      "The file has more than 10 rows, the most a batch may have. Split it into smaller files. Nothing was stored.",
    );
    const missing = h.emulator.waitForMessage((m) => plainText(m).includes("column"), 10_000);
    await payer.uploadDocument(
      "bad.csv",
      "text/csv",
      Buffer.from("numero,somme\n670000001,1000\n"),
    );
    expect(plainText(await missing)).toBe(
      "The file has no amount column. Its headers are: numero, somme. Nothing was stored.",
    );
    expect(await h.app.stores.batches.list({ limit: 5 })).toEqual([]);
  });
});
