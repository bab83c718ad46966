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
  async function draft(who: typeof PAYER | typeof ADMIN, firstName: string) {
    const result = await payouts.preparation.draft({
      kind: "disbursement",
      phone: "237670000001",
      amount: "5000",
      initiatorId: who.userId,
      initiatorRole: who.role,
      chatId: who.userId,
      locale: "en",
      initiatorProfile: { firstName },
    });
    if (result.outcome !== "drafted") throw new Error(`draft refused: ${result.reason}`);
    return result;
  }

  it("names the earlier initiator from the update when it is the sender, from the store otherwise", async () => {
    const earlier = await prompt(PAYER, "5000");
    await payouts.submission.claim(earlier.payout.id, PAYER);
    await stores.profiles.set(PAYER.userId, { firstName: "Paul" });

    // The sender's own repeat: their name as their update gives it (the access step has
    // just remembered it), without reading the store.
    const own = await draft(PAYER, "Paula");
    expect(own.duplicate?.id).toBe(earlier.payout.id);
    expect(own.names.get(PAYER.userId)).toBe("Paula");

    // Someone else's repeat: the earlier initiator's name is read from the store.
    const other = await draft(ADMIN, "Awa");
    expect(other.duplicate?.id).toBe(earlier.payout.id);
    expect(other.names.get(PAYER.userId)).toBe("Paul");
    expect(other.names.has(ADMIN.userId)).toBe(false);
  });

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
