/**
 * A run interrupted between being recorded `sending` and its payout's claim (a replica that
 * died in between): the scheduler finds it once it has been `sending` too long and settles it
 * from its payout's real state, telling the owner. Never paid twice: the claim is the only
 * gate. The crash is made by writing what the dead replica left behind straight to the
 * stores; the apps' clock is real time shifted forward.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import type { Payout } from "../../../src/model/payout.js";
import { runPayoutId, type Schedule } from "../../../src/model/schedule.js";
import { pressAndWait, showPrompt } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { dayAhead, isIn, movedClock, ZONE } from "../../support/schedules.js";

const clock = movedClock();
const now = clock.now;

const h = harnessPerTest({ env: { TIME_ZONE: ZONE, SCHEDULE_REMINDER_HOURS: "0" }, now });

/** A one-off schedule three days ahead, its run left `sending` at its time by a dead replica. */
async function interruptedRun(): Promise<{ schedule: Schedule; key: string; atMs: number }> {
  const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  const { date: when, atMs } = dayAhead(3, "09:00");
  const prompt = await showPrompt(h.emulator, payer, `/schedule ${when} 670000001 5000`);
  await pressAndWait(h.emulator, payer, prompt, "Active");
  const [schedule] = await h.app.stores.schedules.list(1);
  const key = schedule?.nextRunKey;
  if (!schedule || key === undefined) throw new Error("no schedule");
  const written = await h.app.stores.schedules.writeRun(
    {
      scheduleId: schedule.id,
      key,
      atMs,
      state: "sending",
      payoutId: runPayoutId(schedule.id, key),
      updatedAtMs: atMs,
    },
    ["none"],
  );
  expect(written.ok).toBe(true);
  return { schedule, key, atMs };
}

/** The run's payout as the dead replica made it (awaiting its claim). */
function runPayout(schedule: Schedule, key: string, atMs: number): Payout {
  return {
    id: runPayoutId(schedule.id, key),
    kind: "disbursement",
    state: "awaiting_confirmation",
    phone: schedule.phone,
    operator: schedule.operator,
    recipientName: schedule.recipientName,
    amount: schedule.amount,
    initiatorId: schedule.ownerId,
    chatId: schedule.chatId,
    locale: schedule.locale,
    createdAtMs: atMs,
    updatedAtMs: atMs,
    expiresAtMs: atMs + 3_600_000,
    scheduleId: schedule.id,
  };
}

async function runState(schedule: Schedule, key: string): Promise<string | undefined> {
  return (await h.app.stores.schedules.run(schedule.id, key))?.state;
}

describe("a run interrupted while sending", () => {
  it("is sent once when its payout was never made, and the owner is told", async () => {
    const { schedule, key, atMs } = await interruptedRun();
    const told = h.emulator.waitForMessage(isIn(PAYER_ID, "interrupted"), 20_000);
    clock.setTo(atMs + 10 * 60_000);
    await told;
    const payout = await h.app.stores.payouts.get(runPayoutId(schedule.id, key));
    expect(payout?.state).not.toBe("awaiting_confirmation");
    expect(await runState(schedule, key)).toBe("sent");
    // Later sweeps find nothing more to do: still one request.
    await sleep(3_000);
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
    const audit = await h.app.stores.audit.recent(50);
    expect(audit.some((entry) => entry.action === "schedule_run_sent")).toBe(true);
  });

  it("is sent once when its payout was made but never claimed", async () => {
    const { schedule, key, atMs } = await interruptedRun();
    await h.app.stores.payouts.create(runPayout(schedule, key, atMs));
    const told = h.emulator.waitForMessage(isIn(PAYER_ID, "interrupted"), 20_000);
    clock.setTo(atMs + 10 * 60_000);
    await told;
    expect(await runState(schedule, key)).toBe("sent");
    await sleep(3_000);
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
  });

  it("is recorded sent, never sent again, when its payout was claimed before the crash", async () => {
    const { schedule, key, atMs } = await interruptedRun();
    const payoutId = runPayoutId(schedule.id, key);
    await h.app.stores.payouts.create(runPayout(schedule, key, atMs));
    const claim = await h.app.stores.payouts.transition(
      payoutId,
      "confirm",
      { submittedAtMs: atMs },
      { claimId: "dead-replica" },
    );
    expect(claim.ok).toBe(true);
    const told = h.emulator.waitForMessage(isIn(PAYER_ID, "interrupted"), 20_000);
    clock.setTo(atMs + 10 * 60_000);
    expect(plainText(await told)).toContain(payoutId);
    expect(await runState(schedule, key)).toBe("sent");
    await sleep(3_000);
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
  });

  it("is missed, not sent late, once past the catch-up window", async () => {
    const { schedule, key, atMs } = await interruptedRun();
    const told = h.emulator.waitForMessage(isIn(PAYER_ID, "interrupted"), 20_000);
    clock.setTo(atMs + 25 * 3_600_000);
    expect(plainText(await told)).toContain("not sent");
    expect(await runState(schedule, key)).toBe("missed");
    await sleep(3_000);
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
  });
});
