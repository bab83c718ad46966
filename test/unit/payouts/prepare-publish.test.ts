/**
 * The prompt-first record: `draft` stores nothing, `publish` stores the payout with its
 * prompt's message id once the prompt is sent, and a press waiting on `stored` finds it.
 */
import { describe, expect, it } from "vitest";
import type { Payout } from "../../../src/model/payout.js";
import { PAYER, payouts, stores, useStepWorld } from "./step-world.js";

useStepWorld();

async function drafted(): Promise<Payout> {
  const result = await payouts.preparation.draft({
    kind: "disbursement",
    phone: "237670000001",
    amount: "5000",
    initiatorId: PAYER,
    initiatorRole: "payer",
    chatId: PAYER,
    locale: "en",
  });
  if (result.outcome !== "drafted") throw new Error(`draft refused: ${result.reason}`);
  return result.payout;
}

describe("Preparation.publish", () => {
  it("stores the payout with its prompt's message id once the prompt is sent, and not before", async () => {
    const payout = await drafted();
    expect(await stores.payouts.get(payout.id)).toBeNull();

    let sendPrompt: (messageId: number) => void = () => undefined;
    const sent = new Promise<number>((resolve) => {
      sendPrompt = resolve;
    });
    const publishing = payouts.preparation.publish(payout, "payer", () => sent);
    // A press taken while the prompt is on its way waits for the record.
    const pressed = payouts.preparation.stored(payout.id).then(() => stores.payouts.get(payout.id));
    expect(await stores.payouts.get(payout.id)).toBeNull();

    sendPrompt(42);
    expect(await pressed).toMatchObject({ id: payout.id, messageId: 42 });
    expect(await publishing).toEqual({ messageId: 42 });
    expect(await stores.payouts.openPrompt(PAYER, PAYER)).toBe(payout.id);
  });

  it("stores nothing when the prompt could not be sent, and lets a waiting press go on", async () => {
    const payout = await drafted();
    const publishing = payouts.preparation.publish(payout, "payer", async () => {
      throw new Error("Telegram refused the message");
    });
    const pressed = payouts.preparation.stored(payout.id);
    await expect(publishing).rejects.toThrow("Telegram refused the message");
    await pressed;
    expect(await stores.payouts.get(payout.id)).toBeNull();
  });

  it("retires the initiator's older prompt it replaces", async () => {
    const older = await drafted();
    await payouts.preparation.publish(older, "payer", async () => 1);
    const newer = await drafted();
    const published = await payouts.preparation.publish(newer, "payer", async () => 2);
    expect(published.replaced).toMatchObject({ id: older.id, state: "cancelled", messageId: 1 });
  });
});
