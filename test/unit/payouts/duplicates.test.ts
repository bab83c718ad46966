/**
 * The rules of issue 12 in the payout steps, on memory stores and the sandbox over HTTP:
 * four-eyes approval (request, approve, reject with a reason, expire), the daily caps
 * (checked at the prompt, reserved at Confirm, given back), the duplicate warning, and an
 * older prompt retired by a newer one.
 */
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  APPROVER,
  clock,
  PAYER,
  payouts,
  prompt,
  stores,
  useRulesWorld,
} from "./rules-world.js";

useRulesWorld();

describe("duplicate warning and retired prompts", () => {
  it("warns of the same amount to the same number by anyone, and notes it on the payout", async () => {
    const earlier = await prompt(ADMIN, "5000");
    await payouts.submission.claim(earlier.payout.id, ADMIN);
    const again = await prompt(PAYER, "5000");
    expect(again.duplicate?.id).toBe(earlier.payout.id);
    expect(again.payout.duplicateOf).toBe(earlier.payout.id);
    // Its Confirm is audited with the payout it repeats: the payer chose to pay again.
    await payouts.submission.claim(again.payout.id, PAYER);
    // The claim audits its confirm, then the submission in its own step.
    const entries = await stores.audit.recent(2);
    expect(entries.map((entry) => entry.action)).toEqual(["submit", "confirm"]);
    expect(entries.find((entry) => entry.action === "confirm")).toMatchObject({
      details: { duplicateOf: earlier.payout.id },
    });
  });

  it("warns of nothing for another amount, a prompt never confirmed, or a payout that paid nothing", async () => {
    const other = await prompt(ADMIN, "6000");
    await payouts.submission.claim(other.payout.id, ADMIN);
    await prompt(APPROVER, "5000");
    const cancelled = await prompt(ADMIN, "5000");
    await payouts.preparation.cancel(cancelled.payout.id, ADMIN);
    expect((await prompt(PAYER, "5000")).duplicate).toBeUndefined();
  });

  it("warns of nothing once the window has passed", async () => {
    const earlier = await prompt(ADMIN, "5000");
    await payouts.submission.claim(earlier.payout.id, ADMIN);
    clock.nowMs += 60 * 60_000 + 1;
    expect((await prompt(PAYER, "5000")).duplicate).toBeUndefined();
  });

  it("retires the person's older open prompt in the chat when they start a new one", async () => {
    const older = await prompt(PAYER, "5000");
    const someoneElse = await prompt(ADMIN, "7000");
    const newer = await prompt(PAYER, "8000");
    expect(newer.replaced).toMatchObject({ id: older.payout.id, state: "cancelled" });
    expect((await stores.payouts.get(someoneElse.payout.id))?.state).toBe("awaiting_confirmation");
    expect((await stores.audit.recent(2)).find((entry) => entry.action === "cancel")).toMatchObject(
      {
        actorId: PAYER.userId,
        details: { replacedBy: newer.payout.id },
      },
    );
    // /cancel retires the newer one; nothing is left to retire after that.
    const retired = await payouts.preparation.retire(newer.payout.id, PAYER, { command: "cancel" });
    expect(retired?.state).toBe("cancelled");
    expect(
      await payouts.preparation.retire(newer.payout.id, PAYER, { command: "cancel" }),
    ).toBeNull();
  });
});
