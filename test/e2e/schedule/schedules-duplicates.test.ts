/**
 * The duplicate rule on schedules (found by review: two identical `/schedule weekly fri
 * 670000001 5000` showed no warning, and both runs paid in the same minute). The prompt warns
 * of another schedule paying the same amount to the same number, and of a payout of it within
 * DUPLICATE_WINDOW_MINUTES, as /pay does; each run is checked against the payouts in the
 * window (not its own schedule's earlier runs), as batch rows are: a repeat is held for its
 * owner, who may Send anyway or Skip. In English and French.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { payAndConfirm, pressAndWait, showPrompt } from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { isIn, movedClock, ZONE } from "../../support/schedules.js";

const clock = movedClock();
const h = harnessPerTest({
  env: { TIME_ZONE: ZONE, SCHEDULE_REMINDER_HOURS: "0" },
  now: clock.now,
});

const DISBURSE = { method: "POST", path: "/disburse" } as const;

describe("the duplicate rule on a schedule's prompt", () => {
  it("warns of another schedule of the same amount to the same number, and says whose", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const first = await showPrompt(h.emulator, payer, "/schedule weekly fri 670000001 5000");
    expect(plainText(first)).not.toContain("ALREADY");
    await pressAndWait(h.emulator, payer, first, "Active");
    const [made] = await h.app.stores.schedules.list(1);
    const second = await showPrompt(h.emulator, payer, "/schedule weekly fri 670000001 5000");
    const text = plainText(second);
    expect(text).toContain("SCHEDULED ALREADY?");
    expect(text).toContain(made?.id ?? "?");
    expect(text).toContain("Paul");
    expect(text).toContain("every Friday");
    // Another amount, or another number: no warning.
    const other = await showPrompt(h.emulator, payer, "/schedule weekly fri 670000001 6000");
    expect(plainText(other)).not.toContain("ALREADY");
  });

  it("warns of a payout of the same amount to the same number within the window, in French too", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await payAndConfirm(h.emulator, payer, "/pay 670000001 5000");
    const prompt = await showPrompt(h.emulator, payer, "/schedule monthly 28 670000001 5000");
    expect(plainText(prompt)).toContain("PAID ALREADY?");
    expect(plainText(prompt)).not.toContain("SCHEDULED ALREADY?");
    await pressAndWait(h.emulator, payer, prompt, "Active");
    const fr = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "fr" });
    const french = plainText(
      await showPrompt(h.emulator, fr, "/schedule mensuel 28 670000001 5000"),
    );
    expect(french).toContain("DOUBLON\u202f?");
    expect(french).toContain("DÉJÀ PROGRAMMÉ\u202f?");
    expect(french).toContain("Paul");
  });
});

describe("the duplicate rule on a schedule's run", () => {
  it("holds a run that repeats a payout in the window; Send anyway pays it, once", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "fr" });
    const early = await showPrompt(h.emulator, payer, "/schedule weekly fri 08:00 670000001 5000");
    await pressAndWait(h.emulator, payer, early, "Active");
    const late = await showPrompt(h.emulator, admin, "/schedule hebdo ven 09:00 670000001 5000");
    await pressAndWait(h.emulator, admin, late, "Activée");
    const schedules = await h.app.stores.schedules.list(2);
    const [first, second] = [...schedules].sort(
      (a, b) => (a.nextRunAtMs ?? 0) - (b.nextRunAtMs ?? 0),
    );
    if (!first?.nextRunAtMs || !second?.nextRunAtMs) throw new Error("no schedules");

    const paid = h.emulator.waitForMessage(isIn(PAYER_ID, "Paid"), 20_000);
    clock.setTo(first.nextRunAtMs + 1_000);
    await paid;
    const held = h.emulator.waitForMessage(isIn(ADMIN_ID, "retenu"), 20_000);
    clock.setTo(second.nextRunAtMs + 1_000);
    const question = await held;
    expect(plainText(question)).toContain("Le même montant est parti vers ce numéro");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
    const run = await h.app.stores.schedules.run(second.id, second.nextRunKey ?? "");
    expect(run?.state).toBe("held");
    expect(run?.heldBecause).toBe("duplicate");

    // Its owner decides it is a second, separate payment: it is sent, once.
    const sent = h.emulator.waitForMessage(
      (m) => m.chatId === ADMIN_ID && plainText(m).includes("Payé"),
      20_000,
    );
    await admin.pressButton(question, 0);
    await sent;
    expect(h.sandbox.countRequests(DISBURSE)).toBe(2);

    // The first schedule's next run, a week on, is not a repeat of its own earlier run.
    const next = await h.app.stores.schedules.get(first.id);
    if (!next?.nextRunAtMs) throw new Error("no next run");
    clock.setTo(next.nextRunAtMs + 1_000);
    const end = Date.now() + 20_000;
    while (h.sandbox.countRequests(DISBURSE) < 3 && Date.now() < end) await sleep(50);
    const nextRun = await h.app.stores.schedules.run(first.id, next.nextRunKey ?? "");
    expect(nextRun?.state).toBe("sent");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(3);
  });
});
