/**
 * What a schedule checks before each run, end to end: the reminder SCHEDULE_REMINDER_HOURS
 * before it, whose Skip this run keeps the run from being sent; an owner who can no longer
 * pay pauses the schedule (owner and admins told, nothing sent); a suspended operator is
 * tried again, then the run is held. The apps' clock is real time shifted forward.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { isPromptIn, pressAndWait, sendAndWait, showPrompt } from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID, VIEWER_ID } from "../../support/harness.js";
import { dayAhead, isIn, movedClock, ZONE } from "../../support/schedules.js";

const clock = movedClock();
const now = clock.now;

const h = harnessPerTest({
  env: {
    TIME_ZONE: ZONE,
    SCHEDULE_REMINDER_HOURS: "24",
    SCHEDULE_RETRY_HOURS: "1",
    APPROVAL_THRESHOLD_XAF: "100000",
    APPROVAL_TTL_HOURS: "1",
  },
  now,
});

const disbursements = () => h.sandbox.countRequests({ method: "POST", path: "/disburse" });

describe("/schedules", () => {
  it("lets an admin pause, resume and delete a payer's schedule; a viewer only reads it", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const viewer = h.emulator.user({ id: VIEWER_ID, firstName: "Vera", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/schedule weekly fri 670000001 5000");
    await pressAndWait(h.emulator, payer, prompt, "Active");

    const item = await sendAndWait(h.emulator, admin, "/schedules", isPromptIn(ADMIN_ID));
    expect(plainText(item)).toContain("every Friday at 09:00");
    const paused = await pressAndWait(h.emulator, admin, item, "Paused", { button: "⏸ Pause" });
    const resumed = await pressAndWait(h.emulator, admin, paused, "Active", { button: "▶️ Resume" });
    await pressAndWait(h.emulator, admin, resumed, "Deleted", { button: "🗑 Delete" });
    const [schedule] = await h.app.stores.schedules.list(5);
    expect(schedule).toBeUndefined();

    const empty = await sendAndWait(h.emulator, viewer, "/schedules");
    expect(plainText(empty)).toContain("No schedules yet");
    const second = await showPrompt(h.emulator, payer, "/schedule weekly mon 670000001 5000");
    await pressAndWait(h.emulator, payer, second, "Active");
    const title = h.emulator.waitForMessage(isIn(VIEWER_ID, "every Monday"));
    await viewer.sendText("/schedules");
    expect((await title).replyMarkup ?? []).toHaveLength(0);
    const audit = (await h.app.stores.audit.recent(20)).map((entry) => entry.action);
    expect(audit).toEqual(
      expect.arrayContaining(["schedule_pause", "schedule_resume", "schedule_delete"]),
    );
  });
});

describe("before a scheduled run", () => {
  it("reminds its owner a day before, and Skip this run keeps it from being sent", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const run = dayAhead(3, "09:00");
    const prompt = await showPrompt(h.emulator, payer, `/schedule ${run.date} 670000001 5000`);
    await pressAndWait(h.emulator, payer, prompt, "Active");
    const reminded = h.emulator.waitForMessage(isIn(PAYER_ID, "coming up"), 20_000);
    clock.moveTo(run.atMs - 23 * 3_600_000);
    const reminder = await reminded;
    await pressAndWait(
      h.emulator,
      payer,
      reminder,
      (m) => m.messageId === reminder.messageId && (m.replyMarkup?.length ?? 0) === 0,
      { button: "⏭ Skip this run" },
    );
    clock.moveTo(run.atMs + 1_000);
    await sleep(1_000);
    expect(disbursements()).toBe(0);
    const [schedule] = await h.app.stores.schedules.list(1);
    expect(schedule?.state).toBe("finished");
    expect(h.emulator.messages(PAYER_ID).some((m) => plainText(m).includes("Paid"))).toBe(false);
  });

  it("pauses the schedule when its owner can no longer pay, tells the admins, and sends nothing", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const run = dayAhead(1, "10:00");
    const prompt = await showPrompt(
      h.emulator,
      payer,
      `/schedule ${run.date} 10:00 670000001 5000`,
    );
    await pressAndWait(h.emulator, payer, prompt, "Active");
    await h.app.stores.staff.set(PAYER_ID, "viewer");
    const admins = h.emulator.waitForMessage(isIn(ADMIN_ID, "paused"), 20_000);
    clock.moveTo(run.atMs + 1_000);
    expect(plainText(await admins)).toContain("can no longer make payments");
    await sleep(500);
    expect(disbursements()).toBe(0);
    const [schedule] = await h.app.stores.schedules.list(1);
    expect(schedule).toMatchObject({ state: "paused", pausedBecause: "owner_not_allowed" });
  });

  it("expires a schedule nobody approved within APPROVAL_TTL_HOURS, and tells its owner", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const run = dayAhead(2, "09:00");
    const prompt = await showPrompt(h.emulator, payer, `/schedule ${run.date} 670000001 200000`);
    await pressAndWait(h.emulator, payer, prompt, "Waiting for approval");
    const told = h.emulator.waitForMessage(isIn(PAYER_ID, "nobody approved it in time"), 20_000);
    clock.moveTo(Date.now() + 2 * 3_600_000);
    await told;
    const [schedule] = await h.app.stores.schedules.list(1);
    expect(schedule?.state).toBe("expired");
    clock.moveTo(run.atMs + 1_000);
    await sleep(500);
    expect(disbursements()).toBe(0);
  });

  it("tries a suspended operator again, then holds the run for its owner", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const run = dayAhead(1, "11:00");
    const prompt = await showPrompt(
      h.emulator,
      payer,
      `/schedule ${run.date} 11:00 670000001 5000`,
    );
    await pressAndWait(h.emulator, payer, prompt, "Active");
    h.sandbox.setAvailability("mtn", "disbursement", "SUSPENDED");
    clock.moveTo(run.atMs + 1_000);
    await sleep(1_500);
    const [schedule] = await h.app.stores.schedules.list(1);
    if (!schedule) throw new Error("no schedule");
    const key = schedule.nextRunKey ?? "";
    expect((await h.app.stores.schedules.run(schedule.id, key))?.retryingSinceMs).toBeDefined();
    const held = h.emulator.waitForMessage(isIn(PAYER_ID, "held"), 20_000);
    clock.moveTo(run.atMs + 3_600_000 + 60_000);
    expect(plainText(await held)).toContain("operator");
    expect(disbursements()).toBe(0);
  });
});
