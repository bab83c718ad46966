/**
 * /export end to end: the payouts and collections of a period as a CSV document that
 * Excel opens as it should (UTF-8 BOM, `,` or `;` by the reader's language, formula
 * injection defused), read back with csv-parse; the audit trail as CSV for admins (numbers
 * masked); refusals and the empty period; and a large export read from Redis page by page.
 */
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import {
  type EmulatedUser,
  plainText,
  type SentDocument,
} from "../../../src/dev/telegram-emulator/index.js";
import { newBatchId, newPayoutId } from "../../../src/payouts/ids.js";
import { dayOf } from "../../../src/time.js";
import { isNewReplyIn, payAndConfirm, sendAndWait } from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID, VIEWER_ID } from "../../support/harness.js";
import { acceptedPayout } from "../../support/payouts.js";
import { monitorRedis } from "../../support/redis-monitor.js";

const BOM = "\uFEFF";
const ZONE = "Africa/Douala";

const h = harnessPerTest();

function userOf(id: number, firstName: string, languageCode = "en"): EmulatedUser {
  return h.emulator.user({ id, firstName, languageCode });
}

/** Sends `/export …` as `user` and resolves with the document it brings. */
async function exported(user: EmulatedUser, command: string, timeoutMs = 5000) {
  const sent = h.emulator.waitForMessage(
    (message) => message.chatId === user.id && message.document !== undefined,
    timeoutMs,
  );
  await user.sendText(command);
  const message = await sent;
  const document = h.emulator.documents(user.id).find((d) => d.messageId === message.messageId);
  if (!document) throw new Error("no document");
  return document;
}

/** The file as text (BOM kept) and its rows read back by csv-parse, the header first. */
function readCsv(document: SentDocument, delimiter: "," | ";") {
  const text = document.bytes.toString("utf8");
  const rows: string[][] = parse(text, { bom: true, delimiter, relax_column_count: false });
  return { text, header: rows[0] ?? [], rows: rows.slice(1) };
}

/** The rows as objects keyed by the header. */
function records(header: string[], rows: string[][]): Array<Record<string, string>> {
  return rows.map((row) =>
    Object.fromEntries(header.map((name, index) => [name, row[index] ?? ""])),
  );
}

async function ask(user: EmulatedUser, text: string): Promise<string> {
  return plainText(await sendAndWait(h.emulator, user, text, isNewReplyIn(user.id)));
}

describe("/export", () => {
  it("sends today's payouts and collections as a CSV Excel reads: BOM, commas, a formula defused", async () => {
    const payer = userOf(PAYER_ID, "Paul");
    const admin = userOf(ADMIN_ID, "Awa");
    await payAndConfirm(
      h.emulator,
      payer,
      '/pay 670000001 5000 =HYPERLINK("http://x")',
      "Completed",
    );
    await payAndConfirm(h.emulator, payer, "/collect 690000001 3000 @invoice 12", "Completed");
    const payouts = (await h.app.stores.payouts.list({ offset: 0, limit: 10 })).items;

    const document = await exported(admin, "/export");
    const today = dayOf(Date.now(), ZONE);
    expect(document.fileName).toBe(`payouts-${today}.csv`);
    expect(document.mimeType).toBe("text/csv");
    expect(document.caption).toBe(
      `🧾 Payouts and collections created in ${today}: 2 rows. Times: Cameroon time (UTC+1). Numbers in full (237…), to match the merchant portal.`,
    );
    const { text, header, rows } = readCsv(document, ",");
    expect(text.startsWith(BOM)).toBe(true);
    expect(text).toContain("\r\n");
    expect(header).toEqual([
      "created",
      "kind",
      "initiator",
      "approver",
      "recipient name",
      "number",
      "operator",
      "amount",
      "fee",
      "status",
      "payment id",
      "note",
      "settled at",
      "schedule",
    ]);
    const [payout, collection] = records(header, rows);
    const disbursement = payouts.find((item) => item.kind === "disbursement");
    expect(payout).toEqual({
      created: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      kind: "disbursement",
      initiator: `Paul (${PAYER_ID})`,
      approver: "",
      "recipient name": "Jean-Paul Mbarga",
      number: "237670000001",
      operator: "mtn",
      amount: "5000",
      fee: "50",
      status: "success",
      "payment id": disbursement?.paymentId,
      note: '\'=HYPERLINK("http://x")',
      "settled at": expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      schedule: "",
    });
    expect(payout?.created?.slice(0, 10)).toBe(today);
    expect(collection).toMatchObject({
      kind: "collection",
      "recipient name": "Aïcha Nkoulou",
      number: "237690000001",
      operator: "orange",
      amount: "3000",
      fee: "60",
      status: "success",
      note: "'@invoice 12",
    });
  });

  it("shows no fee on a failed payout, as the payer's message shows none (a fee only on success)", async () => {
    const payer = userOf(PAYER_ID, "Paul");
    const admin = userOf(ADMIN_ID, "Awa");
    const prompt = await payAndConfirm(h.emulator, payer, "/pay 670000002 5000", "Failed");
    expect(h.emulator.plainText(prompt)).not.toContain("Fee");
    const [failed] = (await h.app.stores.payouts.list({ offset: 0, limit: 1 })).items;
    // The API did report a fee on the failed payment: the rule, not its absence, hides it.
    expect(failed?.state).toBe("failed");
    expect(failed?.fee).toBe(50);

    const { header, rows } = readCsv(await exported(admin, "/export"), ",");
    const [row] = records(header, rows);
    expect(row).toMatchObject({ status: "failed", amount: "5000", fee: "" });
  });

  it("writes ; and French headers for a French reader, and lets a viewer export", async () => {
    const payer = userOf(PAYER_ID, "Paul");
    const viewer = userOf(VIEWER_ID, "Véro", "fr");
    await payAndConfirm(h.emulator, payer, "/pay 670000001 5000 loyer; mars", "Completed");

    const document = await exported(viewer, "/export");
    const { text, header, rows } = readCsv(document, ";");
    expect(text.startsWith(BOM)).toBe(true);
    expect(header.slice(0, 5)).toEqual([
      "créé le",
      "type",
      "demandé par",
      "approbateur",
      "nom du bénéficiaire",
    ]);
    expect(rows).toHaveLength(1);
    expect(records(header, rows)[0]).toMatchObject({ motif: "loyer; mars", montant: "5000" });
    expect(document.caption).toContain("Numéros complets (237…)");
  });

  it("exports the audit trail for admins only, with numbers masked", async () => {
    const payer = userOf(PAYER_ID, "Paul");
    const admin = userOf(ADMIN_ID, "Awa");
    const viewer = userOf(VIEWER_ID, "Véro");
    await payAndConfirm(h.emulator, payer, "/pay 670000001 5000", "Completed");

    const document = await exported(admin, "/export audit");
    expect(document.fileName).toMatch(/^audit-\d{4}-\d{2}-\d{2}\.csv$/);
    const { text, header, rows } = readCsv(document, ",");
    expect(header).toEqual([
      "time",
      "actor id",
      "actor",
      "role",
      "action",
      "payout",
      "batch",
      "state before",
      "state after",
      "amount",
      "number (masked)",
      "details",
    ]);
    const entries = records(header, rows);
    expect(entries.map((entry) => entry.action)).toEqual([
      "prompt",
      "confirm",
      "submit",
      "accepted",
      "settle_success",
    ]);
    expect(entries[1]).toMatchObject({
      "actor id": String(PAYER_ID),
      actor: `Paul (${PAYER_ID})`,
      role: "payer",
      "state before": "awaiting_confirmation",
      "state after": "submitting",
      amount: "5000",
      "number (masked)": "23767••••001",
    });
    expect(entries[4]).toMatchObject({ "actor id": "0", actor: "", role: "system" });
    expect(text).not.toContain("237670000001");

    expect(await ask(viewer, "/export audit")).toBe("Only admins can do that.");
    // The payer's own Paid notice may still be on its way: the answer is the refusal.
    const refusal = await sendAndWait(
      h.emulator,
      payer,
      "/export",
      (m) => isNewReplyIn(PAYER_ID)(m) && !m.text.includes("Paid"),
    );
    expect(plainText(refusal)).toBe("Only admins and viewers can export payouts.");
    expect(h.emulator.documents(VIEWER_ID)).toEqual([]);
    expect(h.emulator.documents(PAYER_ID)).toEqual([]);
  });

  it("writes the ids the bot makes up exactly as they are, never escaped as formulas", async () => {
    const admin = userOf(ADMIN_ID, "Awa");
    // 1 id in 64 would begin with `-` if ids could: 600 of each make one all but certain.
    const ids = Array.from({ length: 600 }, () => ({
      payoutId: newPayoutId(),
      batchId: newBatchId(),
    }));
    await Promise.all(
      ids.map(({ payoutId, batchId }) =>
        h.app.stores.audit.record({
          atMs: Date.now(),
          actorId: ADMIN_ID,
          actorRole: "admin",
          action: "batch_confirm",
          payoutId,
          batchId,
        }),
      ),
    );

    const document = await exported(admin, "/export audit", 30_000);
    const { header, rows } = readCsv(document, ",");
    const written = records(header, rows).filter((entry) => entry.action === "batch_confirm");
    expect(written.map((entry) => entry.payout).sort()).toEqual(
      ids.map((id) => id.payoutId).sort(),
    );
    expect(written.map((entry) => entry.batch).sort()).toEqual(ids.map((id) => id.batchId).sort());
  });

  it("answers an empty period with a message, not a file, and explains the dates it takes", async () => {
    const admin = userOf(ADMIN_ID, "Awa");
    expect(await ask(admin, "/export 2020-01-01")).toBe(
      "No payouts or collections were created in 2020-01-01: no file.",
    );
    expect(await ask(admin, "/export audit 2020-01-01 2020-01-31")).toBe(
      "Nothing was written to the audit trail in 2020-01-01 – 2020-01-31: no file.",
    );
    expect(await ask(admin, "/export 2024-02-30")).toContain(
      "“2024-02-30” is not a date: write it YYYY-MM-DD",
    );
    expect(await ask(admin, "/export 2024-03-02 2024-03-01")).toContain(
      "The period ends before it starts",
    );
    expect(await ask(admin, "/export yesterday")).toContain(
      "Days run from midnight to midnight, Cameroon time (UTC+1).",
    );
    expect(h.emulator.documents(ADMIN_ID)).toEqual([]);
  });

  it("reads 5,000 payouts from Redis in pages of 500 and writes every one", async () => {
    const admin = userOf(ADMIN_ID, "Awa");
    const startMs = Date.now() - 10_000;
    const count = 5000;
    for (let batch = 0; batch < count; batch += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, index) =>
          h.app.stores.payouts.create(
            acceptedPayout(startMs + Math.floor((batch + index) / 3), {
              note: `row ${batch + index}`,
            }),
          ),
        ),
      );
    }
    const index = `${h.prefix}payouts`;
    const reads: string[][] = [];
    const monitor = await monitorRedis((args) => {
      if (args[0]?.toLowerCase() === "zrangebyscore" && args[1] === index) reads.push(args);
    });
    try {
      const from = dayOf(startMs, ZONE);
      const to = dayOf(Date.now(), ZONE);
      const document = await exported(admin, `/export ${from} ${to}`, 30_000);
      const { rows } = readCsv(document, ",");
      expect(rows).toHaveLength(count);
      expect(new Set(rows.map((row) => row[11])).size).toBe(count);
      expect(document.caption).toContain("5,000 rows");
    } finally {
      monitor.close();
    }
    // Every read of the index asks for one page at most: never the whole period at once.
    const pageReads = reads.filter((args) => args.includes("LIMIT"));
    expect(pageReads.length).toBeGreaterThanOrEqual(count / 500);
    for (const args of pageReads) expect(Number(args.at(-1))).toBeLessThanOrEqual(500);
    expect(reads.every((args) => args.includes("LIMIT") || args[2] === args[3])).toBe(true);
  });
});
