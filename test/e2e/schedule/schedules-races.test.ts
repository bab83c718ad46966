/**
 * A run's owner pressing Skip this run while the scheduler is already checking that run (its
 * name lookup is slow): the run stays skipped and nothing is sent. Send anyway on a held run
 * of a paused schedule, or on a number that has no account any more: refused, nothing sent.
 * The apps' clock is real time shifted forward; the sandbox delays or fails the name lookup.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { pressAndWait, showPrompt } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { dayAhead, isIn, movedClock, ZONE } from "../../support/schedules.js";

const clock = movedClock();
const now = clock.now;

const h = harnessPerTest({
  env: { TIME_ZONE: ZONE, SCHEDULE_REMINDER_HOURS: "24" },
  now,
});

const USER_INFO = /^\/data\/userinfo\//;

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await sleep(25);
  }
}

describe("a run skipped while the scheduler checks it", () => {
  it("is not sent: Skip this run pressed between the scheduler's read and its claim", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const { date: when, atMs } = dayAhead(3, "09:00");
    const prompt = await showPrompt(h.emulator, payer, `/schedule ${when} 670000001 5000`);
    await pressAndWait(h.emulator, payer, prompt, "Active");
    const reminded = h.emulator.waitForMessage(isIn(PAYER_ID, "coming up"), 20_000);
    clock.setTo(atMs - 23 * 3_600_000);
    const reminder = await reminded;

    const lookups = () => h.sandbox.countRequests({ method: "GET", path: USER_INFO });
    const before = lookups();
    h.sandbox.injectFault({ method: "GET", path: USER_INFO, delayMs: 2_500 });
    clock.setTo(atMs + 1_000);
    // The scheduler read the run as due and waits for the name.
    await until(() => lookups() > before);
    await pressAndWait(
      h.emulator,
      payer,
      reminder,
      (m) => m.messageId === reminder.messageId && (m.replyMarkup?.length ?? 0) === 0,
      { button: "⏭ Skip this run" },
    );
    await sleep(4_000);

    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
    const [schedule] = await h.app.stores.schedules.list(1);
    if (!schedule) throw new Error("no schedule");
    const key = (await h.app.stores.audit.recent(50)).find(
      (entry) => entry.action === "schedule_run_skipped",
    )?.details?.runKey;
    expect(typeof key).toBe("string");
    const run = await h.app.stores.schedules.run(schedule.id, String(key));
    expect(run?.state).toBe("skipped");
  });
});

/** A weekly schedule made for another name, its next run held for the name now registered. */
async function heldRun() {
  const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  const prompt = await showPrompt(h.emulator, payer, "/schedule weekly fri 670000001 5000");
  await pressAndWait(h.emulator, payer, prompt, "Active");
  const [schedule] = await h.app.stores.schedules.list(1);
  if (!schedule?.nextRunAtMs || !schedule.nextRunKey) throw new Error("no schedule");
  await h.app.stores.schedules.move(schedule.id, ["active"], "active", {
    recipientName: "Samuel Eto'o",
  });
  const held = h.emulator.waitForMessage(isIn(PAYER_ID, "held"), 20_000);
  clock.setTo(schedule.nextRunAtMs + 1_000);
  return { payer, schedule, key: schedule.nextRunKey, question: await held };
}

describe("Send anyway", () => {
  it("is refused once an admin paused the schedule: nothing sent, the run still held", async () => {
    const { payer, schedule, key, question } = await heldRun();
    await h.app.stores.schedules.move(schedule.id, ["active"], "paused", { changedBy: 1 });
    const pressed = await payer.pressButton(question, "⚠️ Send anyway");
    const answer = await h.emulator.waitForCallbackAnswer(pressed.callbackQueryId);
    expect(answer.text).toContain("paused, deleted or finished");
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
    expect((await h.app.stores.schedules.run(schedule.id, key))?.state).toBe("held");
  });

  it("looks the number up again: no account now, refused and nothing sent", async () => {
    const { payer, schedule, key, question } = await heldRun();
    h.sandbox.injectFault({ method: "GET", path: USER_INFO, status: 404 });
    const pressed = await payer.pressButton(question, "⚠️ Send anyway");
    const answer = await h.emulator.waitForCallbackAnswer(pressed.callbackQueryId);
    expect(answer.text).toContain("no mobile money account");
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
    expect((await h.app.stores.schedules.run(schedule.id, key))?.state).toBe("held");
    expect((await h.app.stores.schedules.get(schedule.id))?.recipientName).toBe("Samuel Eto'o");
  });
});
