/**
 * Scheduled and recurring payouts end to end: /schedule shows the plan, Confirm makes it
 * active, and at the run time one replica sends the run's payout through the one
 * claim-then-send path: one POST /disburse, whatever the replicas or restarts; the owner's
 * message carries the payment id and the schedule. A run missed beyond the catch-up window
 * is reported, never sent; a run held for a changed name waits for Send anyway or Skip. The
 * apps' clock runs with real time, shifted forward by the test (never behind it: the
 * outbox is stamped with Redis's own clock).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { runsAfter } from "../../../src/payouts/schedule/when.js";
import { pressAndWait, sendAndWait, showPrompt } from "../../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  harnessPerTest,
  PAYER_ID,
  VIEWER_ID,
} from "../../support/harness.js";
import { dayAhead, isIn, movedClock, replicasOf, ZONE } from "../../support/schedules.js";

const clock = movedClock();
const now = clock.now;

const h = harnessPerTest({
  env: { TIME_ZONE: ZONE, APPROVAL_THRESHOLD_XAF: "100000", SCHEDULE_REMINDER_HOURS: "0" },
  now,
});
/** Another bot process on the same Redis prefix, the same services and the same clock. */
const startReplica = replicasOf(h, now);

const disbursements = () => h.sandbox.countRequests({ method: "POST", path: "/disburse" });

describe("/schedule", () => {
  it("explains itself when alone, and refuses a date that has passed saying so", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const usage = await sendAndWait(h.emulator, payer, "/schedule");
    expect(plainText(usage)).toContain("/schedule monthly last 14:00");
    const past = await sendAndWait(h.emulator, payer, "/schedule 2020-01-01 670000001 5000");
    expect(plainText(past)).toContain("already passed: 2020-01-01");
    const viewer = h.emulator.user({ id: VIEWER_ID, firstName: "Vera", languageCode: "fr" });
    const refused = await sendAndWait(h.emulator, viewer, "/schedule 24/12 670000001 5000");
    expect(plainText(refused)).toContain("/schedules");
    expect(disbursements()).toBe(0);
  });

  it("sends a one-off run once at its time, with two replicas, and tells its owner the payment id", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await startReplica();
    const run = dayAhead(1, "10:00");
    const prompt = await showPrompt(
      h.emulator,
      payer,
      `/schedule ${run.date} 10:00 670000001 5000 rent`,
    );
    const text = plainText(prompt);
    expect(text).toContain("Jean-Paul Mbarga");
    expect(text).toContain("Amount per run: 5,000 FCFA");
    expect(text).toContain("rent");
    expect(text).toContain("Runs once:");
    expect(text).toContain("10:00 UTC+1");
    await pressAndWait(h.emulator, payer, prompt, "Active");
    expect(disbursements()).toBe(0);

    const paid = h.emulator.waitForMessage(isIn(PAYER_ID, "Paid"), 20_000);
    clock.moveTo(run.atMs + 1_000);
    const message = await paid;
    expect(plainText(message)).toContain("Scheduled payout (");
    expect(plainText(message)).toMatch(/Payment id: \S+/);
    // Both replicas' scheduler rounds have run many times over since.
    await sleep(1_000);
    expect(disbursements()).toBe(1);
    expect(h.emulator.messages(PAYER_ID).filter((m) => plainText(m).includes("Paid"))).toHaveLength(
      1,
    );

    const list = await sendAndWait(h.emulator, payer, "/schedules", isIn(PAYER_ID, "Finished"));
    expect(plainText(list)).toContain("Jean-Paul Mbarga");

    // /export shows the schedule of each payout.
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const sent = h.emulator.waitForMessage(
      (m) => m.chatId === ADMIN_ID && m.document !== undefined,
    );
    await admin.sendText("/export");
    const exported = await sent;
    const file = h.emulator.documents(ADMIN_ID).find((d) => d.messageId === exported.messageId);
    const csv = file?.bytes.toString("utf8") ?? "";
    const [schedule] = await h.app.stores.schedules.list(1);
    expect(csv.split("\r\n")[0]).toMatch(/,schedule$/);
    expect(csv).toContain(`,${schedule?.id}\r\n`);
  });

  it("sends a run whose time passed while stopped once after the start, within the catch-up window", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const run = dayAhead(1, "09:00");
    const prompt = await showPrompt(h.emulator, payer, `/schedule ${run.date} 670000001 7000`);
    await pressAndWait(h.emulator, payer, prompt, "Active");
    await h.app.stop();
    clock.moveTo(run.atMs + 3_600_000);
    const paid = h.emulator.waitForMessage(isIn(PAYER_ID, "Paid"), 20_000);
    await startReplica();
    await paid;
    await sleep(500);
    expect(disbursements()).toBe(1);
  });

  it("reports a run missed beyond the catch-up window and never sends it", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const run = dayAhead(1, "09:00");
    const prompt = await showPrompt(h.emulator, payer, `/schedule ${run.date} 670000001 8000`);
    await pressAndWait(h.emulator, payer, prompt, "Active");
    await h.app.stop();
    clock.moveTo(run.atMs + 25 * 3_600_000);
    const missed = h.emulator.waitForMessage(isIn(PAYER_ID, "missed"), 20_000);
    await startReplica();
    expect(plainText(await missed)).toContain("not sent");
    await sleep(500);
    expect(disbursements()).toBe(0);
  });

  it("pays a monthly 31st on the last day of February, the runs on the way reported missed", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/schedule monthly 31 670000001 5000");
    expect(plainText(prompt)).toContain("every month on day 31");
    expect(plainText(prompt).match(/• .*/g)).toHaveLength(3);
    await pressAndWait(h.emulator, payer, prompt, "Active");
    const [schedule] = await h.app.stores.schedules.list(1);
    if (!schedule) throw new Error("the schedule was not stored");
    const runs = runsAfter(schedule.recurrence, ZONE, now(), 14);
    const february = runs.findIndex((run) => run.key.slice(4, 6) === "02");
    const run = runs[february];
    if (!run) throw new Error("no February run within 14 months");
    expect(run.key).toMatch(/^\d{4}02(28|29)0900$/);

    const paid = h.emulator.waitForMessage(isIn(PAYER_ID, "Paid"), 20_000);
    clock.moveTo(run.atMs + 1_000);
    await paid;
    expect(disbursements()).toBe(1);
    expect(await h.app.stores.schedules.run(schedule.id, run.key)).toMatchObject({
      state: "sent",
      payoutId: `${schedule.id}-${run.key}`,
    });
    for (const earlier of runs.slice(0, february)) {
      expect((await h.app.stores.schedules.run(schedule.id, earlier.key))?.state).toBe("missed");
    }
    const last = await showPrompt(h.emulator, payer, "/schedule mensuel dernier 670000001 5000");
    expect(plainText(last)).toContain("last day of every month");
  });

  it("waits for an approver at or over the threshold, once for every run", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ada", languageCode: "en" });
    h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const run = dayAhead(1, "11:00");
    const prompt = await showPrompt(
      h.emulator,
      payer,
      `/schedule ${run.date} 11:00 670000001 150000 salary`,
    );
    expect(plainText(prompt)).toContain("a second person approves");
    const card = h.emulator.waitForMessage(isIn(APPROVER_ID, "Scheduled payout to approve"));
    await pressAndWait(h.emulator, payer, prompt, "Waiting for approval");
    const shown = await card;
    expect(plainText(shown)).toContain("150,000 FCFA");
    expect(plainText(shown)).toContain("11:00 UTC+1");
    const told = h.emulator.waitForMessage(isIn(PAYER_ID, "approved"));
    await pressAndWait(h.emulator, approver, shown, "Active");
    await told;

    const paid = h.emulator.waitForMessage(isIn(PAYER_ID, "Paid"), 20_000);
    clock.moveTo(run.atMs + 1_000);
    await paid;
    expect(disbursements()).toBe(1);
  });

  it("holds a run whose registered name changed: Send anyway pays it, Skip does not", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const first = dayAhead(1, "09:00");
    const second = dayAhead(1, "09:30");
    for (const [when, amount] of [
      [`${first.date} 09:00`, "6000"],
      [`${second.date} 09:30`, "6100"],
    ] as const) {
      const prompt = await showPrompt(h.emulator, payer, `/schedule ${when} 670000001 ${amount}`);
      await pressAndWait(h.emulator, payer, prompt, "Active");
    }
    // As if the number had changed hands since: the schedules were made for another name.
    for (const schedule of await h.app.stores.schedules.list(10)) {
      await h.app.stores.schedules.move(schedule.id, ["active"], "active", {
        recipientName: "Samuel Eto'o",
      });
    }
    const held = h.emulator.waitForMessage(isIn(PAYER_ID, "held"), 20_000);
    clock.moveTo(first.atMs + 1_000);
    const question = await held;
    expect(plainText(question)).toContain("now registered to Jean-Paul Mbarga");
    expect(disbursements()).toBe(0);
    const paid = h.emulator.waitForMessage(isIn(PAYER_ID, "Paid"), 20_000);
    await payer.pressButton(question, "⚠️ Send anyway");
    await paid;
    expect(disbursements()).toBe(1);
    // Paid to the name shown for this run only: the schedule keeps the name it was approved
    // for, and the name sent is audited.
    const sentOne = (await h.app.stores.schedules.list(10)).find((s) => s.amount === 6000);
    expect(sentOne?.recipientName).toBe("Samuel Eto'o");
    const audited = (await h.app.stores.audit.recent(50)).find(
      (entry) => entry.action === "schedule_run_sent",
    );
    expect(audited?.details).toMatchObject({
      sentAnyway: "yes",
      recipientName: "Jean-Paul Mbarga",
    });

    const heldAgain = h.emulator.waitForMessage(
      (m) => isIn(PAYER_ID, "held")(m) && m.messageId !== question.messageId,
      20_000,
    );
    clock.moveTo(second.atMs + 1_000);
    const secondQuestion = await heldAgain;
    await pressAndWait(
      h.emulator,
      payer,
      secondQuestion,
      (m) => m.messageId === secondQuestion.messageId && (m.replyMarkup?.length ?? 0) === 0,
      { button: "⏭ Skip" },
    );
    await sleep(500);
    expect(disbursements()).toBe(1);
  });
});
