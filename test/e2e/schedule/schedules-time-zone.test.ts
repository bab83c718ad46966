/**
 * A schedule in a TIME_ZONE with daylight saving (Europe/Paris): a weekly run at 09:00
 * stays at 09:00 on the local clock across the change, so its instant in UTC moves by an
 * hour; the run after the change is sent at its local time, and the prompt shows each run
 * with the offset it will have. The apps' clock is real time shifted forward by the test.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { runsAfter } from "../../../src/payouts/schedule/when.js";
import { pressAndWait, showPrompt } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { movedClock } from "../../support/schedules.js";

const ZONE = "Europe/Paris";
const clock = movedClock();
const now = clock.now;

const h = harnessPerTest({ env: { TIME_ZONE: ZONE, SCHEDULE_REMINDER_HOURS: "0" }, now });

describe("a schedule in Europe/Paris", () => {
  it("sends the first weekly run after a change of offset at 09:00 local time", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "fr" });
    const prompt = await showPrompt(h.emulator, payer, "/schedule hebdo lun 670000001 5000");
    const text = plainText(prompt);
    expect(text).toContain("chaque lundi à 09:00");
    expect(text).toMatch(/lun\. \d+ \S+ \d{4} à 09:00 UTC\+[12]/);
    await pressAndWait(h.emulator, payer, prompt, "Activée");

    const recurrence = { kind: "weekly", weekday: 1, time: "09:00" } as const;
    const runs = runsAfter(recurrence, ZONE, now(), 60);
    const hourOf = (ms: number) => new Date(ms).getUTCHours();
    const first = runs[0];
    const changed = runs.findIndex((run) => first && hourOf(run.atMs) !== hourOf(first.atMs));
    const run = runs[changed];
    if (!first || !run) throw new Error("no change of offset within 60 weeks");
    // 08:00 UTC in winter (UTC+1), 07:00 UTC in summer (UTC+2), the other way in autumn.
    expect(Math.abs(hourOf(run.atMs) - hourOf(first.atMs))).toBe(1);
    expect(run.key.slice(8)).toBe("0900");

    // A second after 09:00 local on that Monday, not an hour later: it is already sent.
    const paid = h.emulator.waitForMessage(
      (message) => message.chatId === PAYER_ID && plainText(message).includes("Payé"),
      20_000,
    );
    clock.setTo(run.atMs + 1_000);
    await paid;
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
    const [schedule] = await h.app.stores.schedules.list(1);
    expect(schedule && (await h.app.stores.schedules.run(schedule.id, run.key))?.state).toBe(
      "sent",
    );
  });
});
