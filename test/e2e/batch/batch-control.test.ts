/**
 * Batch payouts under control: Stop while rows are on their way (the rows not yet claimed
 * are never sent, the summary and results say so), /batches and /batch ID, and the rules
 * that refuse a Confirm (a daily limit on the total; a total at or over the approval
 * threshold goes to approval instead: batch-approval.test.ts).
 */
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { sendAndWait } from "../../support/flows.js";
import { ADMIN_ID, APPROVER_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;

/** `count` rows to distinct numbers, `amount` each. */
function file(count: number, amount: number): Buffer {
  const rows = Array.from({ length: count }, (_, index) => `6700001${10 + index},${amount}`);
  return Buffer.from(`phone,amount\n${rows.join("\n")}\n`);
}

/** The running batch's progress message (its Stop button), not the preview's last edit. */
const hasStop = (message: { replyMarkup?: unknown }) =>
  JSON.stringify(message.replyMarkup ?? []).includes("⏹ Stop");

describe("batch Stop, /batches and /batch", () => {
  const h = harnessPerTest();

  it("stops the rows not yet sent when an admin presses Stop, and reports them", async () => {
    // Every payment request is slow: rows are still waiting when Stop is pressed.
    h.sandbox.injectFault({ ...DISBURSE, delayMs: 700, times: Number.POSITIVE_INFINITY });
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const preview = h.emulator.waitForMessage((m) => plainText(m).includes("is checked"), 20_000);
    await payer.uploadDocument("couriers.csv", "text/csv", file(12, 1000));
    const shown = await preview;
    const running = h.emulator.waitForMessage(
      (m) => plainText(m).includes("paying 12 rows") && hasStop(m),
    );
    await payer.pressButton(shown, 0);
    await running;
    await expect
      .poll(() => h.sandbox.countRequests(DISBURSE), { timeout: 20_000 })
      .toBeGreaterThan(0);

    // The admin finds the batch with /batch ID; its view has the Stop button while it runs.
    const [running1] = await h.app.stores.batches.list({ limit: 1 });
    const view = await sendAndWait(h.emulator, admin, `/batch ${running1?.id}`);
    expect(plainText(view)).toContain("Paying");
    const summary = h.emulator.waitForMessage((m) => plainText(m).includes("is finished"), 30_000);
    const press = await admin.pressButton(view, "⏹ Stop");
    const stopped = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
    expect(stopped.text).toBe("Stopping: the rows not yet sent will not be paid.");
    const done = plainText(await summary);
    const sent = h.sandbox.countRequests(DISBURSE);
    expect(sent).toBeLessThan(12);
    expect(done).toContain("Stopped by Awa: the rows not yet sent were not paid.");
    expect(done).toContain(
      `Paid ${sent} · failed 0 · pending 0 · unknown 0 · skipped ${12 - sent}`,
    );
    const results = parse(h.emulator.documents(PAYER_ID).at(-1)?.bytes ?? Buffer.alloc(0), {
      bom: true,
    }) as string[][];
    const reasons = results.slice(1).map((row) => row[9]);
    expect(reasons.filter((reason) => reason === "stopped")).toHaveLength(12 - sent);
    // Nothing more leaves afterwards.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(h.sandbox.countRequests(DISBURSE)).toBe(sent);
    // Stop is decided inside each row's claim: every row sent had left before Stop was
    // answered (the send time is stamped by the claim itself, with Redis's clock).
    const rowPayouts = await Promise.all(
      Array.from({ length: 12 }, (_, row) => h.app.stores.payouts.get(`${running1?.id}-${row}`)),
    );
    const sentAt = rowPayouts.flatMap((payout) => (payout?.sentAtMs === undefined ? [] : [payout]));
    expect(sentAt).toHaveLength(sent);
    for (const payout of sentAt) expect(payout.sentAtMs).toBeLessThanOrEqual(stopped.atMs);

    const [batch] = await h.app.stores.batches.list({ limit: 1 });
    const list = await sendAndWait(h.emulator, payer, "/batches");
    expect(plainText(list)).toContain(`${batch?.id} ·`);
    expect(plainText(list)).toContain("12 rows · Done");
    const detail = await sendAndWait(h.emulator, payer, `/batch ${batch?.id}`);
    expect(plainText(detail)).toContain("File: couriers.csv, 12 rows, sent on");
    expect(plainText(detail)).toContain("by Paul.");
    expect(plainText(detail)).toContain("Stopped by Awa");
    const unknown = await sendAndWait(h.emulator, payer, "/batch nosuchid");
    expect(plainText(unknown)).toBe("No batch with that id.");
  });

  it("lets no one but the initiator or an admin stop a batch (nor see it), and explains the format on /batch", async () => {
    h.sandbox.injectFault({ ...DISBURSE, delayMs: 700, times: Number.POSITIVE_INFINITY });
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const help = await sendAndWait(h.emulator, payer, "/batch");
    expect(plainText(help)).toContain("send me a CSV file with the columns phone, amount");
    const preview = h.emulator.waitForMessage((m) => plainText(m).includes("is checked"), 20_000);
    await payer.uploadDocument("run.csv", "text/csv", file(8, 1000));
    const running = h.emulator.waitForMessage(
      (m) => plainText(m).includes("paying 8 rows") && hasStop(m),
    );
    await payer.pressButton(await preview, 0);
    const progress = await running;
    const other = h.emulator.user({ id: APPROVER_ID, firstName: "Olga", languageCode: "en" });
    const [batch] = await h.app.stores.batches.list({ limit: 1 });
    const hidden = await sendAndWait(h.emulator, other, `/batch ${batch?.id}`);
    expect(plainText(hidden)).toBe("No batch with that id.");
    // A Stop pressed by someone else all the same (a forged callback) is refused.
    const press = await other.pressButton(progress, 0);
    const refusal = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
    expect(refusal.text).toBe("Only the person who sent this batch can do that.");
    await expect.poll(() => h.sandbox.countRequests(DISBURSE), { timeout: 20_000 }).toBe(8);
  });
});

describe("batch Confirm refused by the rules", () => {
  const h = harnessPerTest({
    env: { PAYER_DAILY_LIMIT_XAF: "2000", APPROVAL_THRESHOLD_XAF: "5000" },
  });

  async function previewOf(rows: number, amount: number): Promise<SentMessage> {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const preview = h.emulator.waitForMessage((m) => plainText(m).includes("is checked"), 20_000);
    await payer.uploadDocument("rules.csv", "text/csv", file(rows, amount));
    return preview;
  }

  it("refuses a total over the daily limit, saying what is left, and pays nothing", async () => {
    const shown = await previewOf(3, 1000);
    expect(plainText(shown)).toContain(
      "⚠️ Over your daily limit: 2,000 FCFA left today. Confirm will be refused.",
    );
    const payer = h.emulator.user({ id: PAYER_ID });
    const press = await payer.pressButton(shown, 0);
    const answer = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
    expect(answer.text).toBe(
      "Refused: the batch's total is over the daily limit. 2,000 FCFA left today.",
    );
    expect(answer.showAlert).toBe(true);
    const audited = (await h.app.stores.audit.recent(10)).find(
      (entry) => entry.action === "limit_refused",
    );
    expect(audited).toMatchObject({ amount: 3000, details: { step: "confirm" } });
    expect(audited?.batchId).toBeDefined();
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const trail = plainText(await sendAndWait(h.emulator, admin, "/audit"));
    expect(trail).toContain("Refused: over a daily limit");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });
});
