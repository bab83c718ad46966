/**
 * Scheduled batches (payroll) end to end: a CSV file captioned `/schedule WHEN` is checked
 * and previewed as any batch, with its plan; one Confirm (or one approval, as one) covers
 * every run; at each run time one replica makes the run's batch and the batch worker pays
 * its rows once each, through the one claim-then-send path, and the owner gets the run's
 * summary. The apps' clock runs with real time, shifted forward by the test (never behind).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { runBatchId, type Schedule } from "../../../src/model/schedule.js";
import { runsAfter } from "../../../src/payouts/schedule/when.js";
import { sendAndWait } from "../../support/flows.js";
import { ADMIN_ID, APPROVER_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { isIn, movedClock, replicasOf, ZONE } from "../../support/schedules.js";

const clock = movedClock();
const now = clock.now;

const h = harnessPerTest({
  env: { TIME_ZONE: ZONE, APPROVAL_THRESHOLD_XAF: "100000", SCHEDULE_REMINDER_HOURS: "0" },
  now,
});
/** Another bot process on the same Redis prefix, the same services and the same clock. */
const startReplica = replicasOf(h, now);

/** The numbers and amounts of every POST /disburse so far, in order. */
function disbursed(): string[] {
  return h.sandbox.requests
    .filter((request) => request.method === "POST" && request.path === "/disburse")
    .map((request) => request.body as { phoneNumber: string; amount: number })
    .map((body) => `${body.phoneNumber}:${body.amount}`);
}

/** Three salaried couriers, 17,000 FCFA a run. */
const PAYROLL = Buffer.from(
  "phone,amount,note\n670000001,5000,salary\n690000001,7000,salary\n670000110,5000,salary\n",
);
const PAID_ROWS = ["237670000001:5000", "237690000001:7000", "237670000110:5000"];

/** Uploads `file` as the payer with `caption`; resolves with its preview once checked. */
async function preview(file: Buffer, caption: string): Promise<SentMessage> {
  const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  const shown = h.emulator.waitForMessage(isIn(PAYER_ID, "is checked"), 20_000);
  await payer.uploadDocument("payroll.csv", "text/csv", file, caption);
  return shown;
}

/** Presses the preview's first button (Confirm batch) as `userId`; the answer's text. */
async function press(message: SentMessage, userId: number): Promise<string> {
  const pressed = await h.emulator.user({ id: userId }).pressButton(message, 0);
  return (await h.emulator.waitForCallbackAnswer(pressed.callbackQueryId)).text ?? "";
}

async function scheduleOf(id: string): Promise<Schedule> {
  const schedule = await h.app.stores.schedules.get(id);
  if (!schedule) throw new Error(`schedule ${id} not stored`);
  return schedule;
}

describe("a scheduled batch", () => {
  it("pays every row at each run, once per row with two replicas, and again as new payouts at the second run", async () => {
    await startReplica();
    const shown = await preview(PAYROLL, "/schedule monthly 15 10:00");
    const text = plainText(shown);
    expect(text).toContain("Scheduled batch: every month on day 15 at 10:00");
    expect(text).toContain("To pay: 3 rows, 17,000 FCFA");
    expect(text).toContain("Next runs:");
    expect(text.match(/• .*10:00 UTC\+1/g)).toHaveLength(3);
    expect(await press(shown, PAYER_ID)).toBe("Scheduled");
    const [batch] = await h.app.stores.batches.list({ limit: 1 });
    if (!batch) throw new Error("no batch");
    expect(batch.state).toBe("scheduled");
    await expect
      .poll(() => plainText(h.emulator.message(PAYER_ID, shown.messageId) ?? shown))
      .toContain(`Batch ${batch.id} scheduled: 3 rows, 17,000 FCFA per run.`);
    const schedule = await scheduleOf(batch.id);
    expect(schedule).toMatchObject({ state: "active", amount: 17_000 });
    expect(await h.app.stores.schedules.rows(schedule.id)).toHaveLength(3);
    expect(disbursed()).toEqual([]);

    // The first run: one replica makes its batch, the worker pays each row once.
    const firstKey = schedule.nextRunKey ?? "";
    const first = h.emulator.waitForMessage(isIn(PAYER_ID, "Run of scheduled batch"), 30_000);
    clock.moveTo((schedule.nextRunAtMs ?? 0) + 1_000);
    const summary = plainText(await first);
    expect(summary).toContain(`Batch ${runBatchId(schedule.id, firstKey)} is finished.`);
    expect(summary).toContain("Paid 3 · failed 0");
    expect([...disbursed()].sort()).toEqual([...PAID_ROWS].sort());
    expect(await h.app.stores.schedules.run(schedule.id, firstKey)).toMatchObject({
      state: "sent",
      batchId: runBatchId(schedule.id, firstKey),
    });
    // Both replicas' rounds have run many times over since: still one POST per row.
    await sleep(1_000);
    expect(disbursed()).toHaveLength(3);

    // The second run, a month later: the same rows, paid again as payouts of their own.
    const [second] = runsAfter(schedule.recurrence, ZONE, schedule.nextRunAtMs ?? 0, 1);
    if (!second) throw new Error("no second run");
    await expect
      .poll(async () => (await scheduleOf(schedule.id)).nextRunKey, { timeout: 10_000 })
      .toBe(second.key);
    const again = h.emulator.waitForMessage(
      (m) => isIn(PAYER_ID, runBatchId(schedule.id, second.key))(m) && m.document === undefined,
      30_000,
    );
    clock.moveTo(second.atMs + 1_000);
    expect(plainText(await again)).toContain("Paid 3 · failed 0");
    expect(disbursed()).toHaveLength(6);
    expect([...disbursed().slice(3)].sort()).toEqual([...PAID_ROWS].sort());
    for (const row of [2, 3, 4]) {
      const firstPayout = await h.app.stores.payouts.get(`${schedule.id}-${firstKey}-${row}`);
      const secondPayout = await h.app.stores.payouts.get(`${schedule.id}-${second.key}-${row}`);
      expect(firstPayout?.state).toBe("success");
      expect(secondPayout?.state).toBe("success");
      expect(secondPayout?.scheduleId).toBe(schedule.id);
    }
    await sleep(1_000);
    expect(disbursed()).toHaveLength(6);

    // /schedules shows it is a batch: its rows and its total.
    const payer = h.emulator.user({ id: PAYER_ID });
    const listed = await sendAndWait(
      h.emulator,
      payer,
      "/schedules",
      isIn(PAYER_ID, "Batch: 3 rows"),
    );
    expect(plainText(listed)).toContain("Total per run: 17,000 FCFA");
    expect(plainText(listed)).toContain("from payroll.csv");
  });

  it("is approved as one at or over the threshold, and each run is paid without another approval", async () => {
    h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ada", languageCode: "en" });
    await sendAndWait(h.emulator, approver, "/help");
    const file = Buffer.from("phone,amount\n670000001,60000\n690000001,50000\n");
    const shown = await preview(file, "/schedule weekly fri 08:30");
    expect(plainText(shown)).toContain("every Friday at 08:30");
    const card = h.emulator.waitForMessage(
      (m) => isIn(APPROVER_ID, "Approval needed")(m) && (m.replyMarkup ?? []).length > 0,
      20_000,
    );
    expect(await press(shown, PAYER_ID)).toContain("Sent for approval");
    const shownCard = await card;
    expect(plainText(shownCard)).toContain("To pay: 2 rows, 110,000 FCFA in all.");
    expect(plainText(shownCard)).toContain("Scheduled batch: every Friday at 08:30");
    const [batch] = await h.app.stores.batches.list({ limit: 1 });
    if (!batch) throw new Error("no batch");
    expect(await h.app.stores.schedules.get(batch.id)).toBeNull();

    const told = h.emulator.waitForMessage(isIn(PAYER_ID, "approved by Ada"));
    expect(await press(shownCard, APPROVER_ID)).toBe("Approved: the batch is scheduled.");
    expect(plainText(await told)).toContain("scheduled, 2 rows, 110,000 FCFA per run");
    const schedule = await scheduleOf(batch.id);
    expect(schedule).toMatchObject({ state: "active", approvedBy: APPROVER_ID });
    expect(disbursed()).toEqual([]);

    const summary = h.emulator.waitForMessage(isIn(PAYER_ID, "Run of scheduled batch"), 30_000);
    clock.moveTo((schedule.nextRunAtMs ?? 0) + 1_000);
    expect(plainText(await summary)).toContain("Paid 2 · failed 0");
    expect([...disbursed()].sort()).toEqual(["237670000001:60000", "237690000001:50000"]);
    const audit = (await h.app.stores.audit.recent(100)).map((entry) => entry.action);
    expect(audit).toEqual(
      expect.arrayContaining([
        "batch_request_approval",
        "batch_approve",
        "schedule_approve",
        "schedule_run_sent",
        "batch_run_start",
      ]),
    );
  });

  it("does not pay a row whose registered name changed by the run, and its summary says so", async () => {
    const shown = await preview(PAYROLL, "/schedule monthly last");
    await press(shown, PAYER_ID);
    const [batch] = await h.app.stores.batches.list({ limit: 1 });
    if (!batch) throw new Error("no batch");
    const made = await scheduleOf(batch.id);
    // As if the first number had changed hands since: the rows were confirmed for another name.
    const rows = await h.app.stores.schedules.rows(made.id);
    const changed = rows.map((row, index) =>
      index === 0 ? { ...row, name: "Samuel Eto'o" } : row,
    );
    const schedule = { ...made, id: `${made.id}b` };
    const audit = {
      atMs: now(),
      actorId: PAYER_ID,
      actorRole: "payer" as const,
      action: "schedule_prompt" as const,
    };
    await h.app.stores.schedules.create(schedule, audit, changed);
    await h.app.stores.schedules.move(schedule.id, ["active"], "active", {});
    await h.app.stores.schedules.move(made.id, ["active"], "deleted", {});

    const summary = h.emulator.waitForMessage(isIn(PAYER_ID, "Run of scheduled batch"), 30_000);
    clock.moveTo((schedule.nextRunAtMs ?? 0) + 1_000);
    expect(plainText(await summary)).toContain(
      "Paid 2 · failed 0 · pending 0 · unknown 0 · skipped 1",
    );
    expect([...disbursed()].sort()).toEqual(["237670000110:5000", "237690000001:7000"]);
    const runBatch = runBatchId(schedule.id, schedule.nextRunKey ?? "");
    const [first] = await h.app.stores.batches.rows(runBatch, 0, 1);
    expect(first).toMatchObject({ problem: "name_mismatch", name: "Jean-Paul Mbarga" });
    const file = h.emulator.documents(PAYER_ID).at(-1);
    expect(file?.bytes.toString("utf8")).toContain("Samuel Eto'o");
  });

  it("pays a run whose time passed while stopped once after the start, one POST per row", async () => {
    const shown = await preview(PAYROLL, "/schedule weekly mon 09:00");
    expect(await press(shown, PAYER_ID)).toBe("Scheduled");
    const [batch] = await h.app.stores.batches.list({ limit: 1 });
    const schedule = await scheduleOf(batch?.id ?? "");
    await h.app.stop();
    clock.moveTo((schedule.nextRunAtMs ?? 0) + 3_600_000);
    const summary = h.emulator.waitForMessage(isIn(PAYER_ID, "Run of scheduled batch"), 30_000);
    await startReplica();
    await startReplica();
    expect(plainText(await summary)).toContain("Paid 3 · failed 0");
    await sleep(1_000);
    expect([...disbursed()].sort()).toEqual([...PAID_ROWS].sort());
  });

  it("makes the batch of a run recorded as sending before a crash once after the start", async () => {
    const shown = await preview(PAYROLL, "/schedule weekly tue 09:00");
    expect(await press(shown, PAYER_ID)).toBe("Scheduled");
    const [batch] = await h.app.stores.batches.list({ limit: 1 });
    const schedule = await scheduleOf(batch?.id ?? "");
    const key = schedule.nextRunKey ?? "";
    await h.app.stop();
    // As if a scheduler had recorded the run as sending and died before making its batch
    // (written before the run's time, so the replica started reads it as it is).
    const replica = await startReplica();
    const sending = await replica.stores.schedules.writeRun(
      {
        scheduleId: schedule.id,
        key,
        atMs: schedule.nextRunAtMs ?? 0,
        state: "sending",
        batchId: runBatchId(schedule.id, key),
        updatedAtMs: now(),
      },
      ["none"],
    );
    expect(sending.ok).toBe(true);
    const summary = h.emulator.waitForMessage(isIn(PAYER_ID, "Run of scheduled batch"), 30_000);
    clock.moveTo((schedule.nextRunAtMs ?? 0) + 1_000);
    await startReplica();
    expect(plainText(await summary)).toContain("Paid 3 · failed 0");
    await sleep(1_000);
    expect([...disbursed()].sort()).toEqual([...PAID_ROWS].sort());
    expect((await replica.stores.schedules.run(schedule.id, key))?.state).toBe("sent");
  });

  it("refuses a caption whose WHEN does not read, explaining the syntax, and stores nothing", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const refused = h.emulator.waitForMessage(isIn(PAYER_ID, "Schedule a batch"));
    await payer.uploadDocument("payroll.csv", "text/csv", PAYROLL, "/schedule monthly 32");
    const text = plainText(await refused);
    expect(text).toContain("A monthly schedule needs a day from 1 to 31");
    expect(text).toContain("/schedule monthly last 14:00");
    expect(text).toContain("Nothing was stored.");
    const bare = h.emulator.waitForMessage(
      (m) => isIn(PAYER_ID, "Schedule a batch")(m) && !plainText(m).includes("monthly schedule"),
    );
    await payer.uploadDocument("payroll.csv", "text/csv", PAYROLL, "/schedule");
    expect(plainText(await bare)).toContain("weekly fri");
    await sleep(500);
    expect(await h.app.stores.batches.list({ limit: 5 })).toEqual([]);
    expect(disbursed()).toEqual([]);
  });
});

describe("a scheduled batch at or over the PIN threshold", () => {
  const pinned = harnessPerTest({
    env: {
      STEP_UP_THRESHOLD_XAF: "15000",
      WEBAPP_URL: "https://pay.example.test/app/",
      SCHEDULE_REMINDER_HOURS: "0",
    },
  });

  it("asks for the PIN at Confirm: a chat Confirm moves nothing and nothing is scheduled", async () => {
    const payer = pinned.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const shown = pinned.emulator.waitForMessage(isIn(PAYER_ID, "is checked"), 20_000);
    await payer.uploadDocument("payroll.csv", "text/csv", PAYROLL, "/schedule monthly 1");
    const preview = await shown;
    const [batch] = await pinned.app.stores.batches.list({ limit: 1 });
    const batchId = batch?.id ?? "";
    const first = (preview.replyMarkup ?? []).flat()[0];
    expect(first?.text).toBe("🔐 Confirm with PIN");
    expect(first?.web_app?.url).toBe(
      `https://pay.example.test/app/?step_up=batch-confirm.${batchId}`,
    );
    const forged = await payer.pressCallbackData(preview.messageId, `bc:${batchId}`);
    const answer = await pinned.emulator.waitForCallbackAnswer(forged.callbackQueryId);
    expect(answer.text).toContain("needs your PIN");
    expect((await pinned.app.stores.batches.get(batchId))?.state).toBe("ready");
    expect(await pinned.app.stores.schedules.list(10)).toEqual([]);
  });
});
