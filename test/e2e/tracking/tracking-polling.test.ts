/**
 * Final statuses reaching the payer with no callbacks at all: polling is the safety net,
 * and it backs off when the API says 429.
 */
import { afterEach, describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { confirmPayout } from "../../support/flows.js";
import { type Harness, PAYER_ID, startHarness } from "../../support/harness.js";

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(): Promise<Harness> {
  // No callback URL is set on the sandbox: only polling can settle anything.
  h = await startHarness();
  return h;
}

function isNotice(message: SentMessage, prompt: SentMessage): boolean {
  return (
    message.chatId === prompt.chatId &&
    message.messageId !== prompt.messageId &&
    /^(✅ Paid|❌ Failed|⚪ Cancelled):/.test(plainText(message))
  );
}

function notices(harness: Harness, prompt: SentMessage): SentMessage[] {
  return harness.emulator.messages(prompt.chatId).filter((m) => isNotice(m, prompt));
}

async function quiet(harness: Harness): Promise<void> {
  await expect.poll(() => harness.app.stores.outbox.size()).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, 400));
}

function reads(harness: Harness, paymentId: string): number {
  return harness.sandbox.countRequests({ method: "GET", path: `/payments/${paymentId}` });
}

describe("status tracking by polling only", () => {
  it.each([
    { number: "237670000001", state: "success", start: "✅ Paid:", title: "Completed" },
    { number: "237670000002", state: "failed", start: "❌ Failed:", title: "Failed" },
    { number: "237670000005", state: "canceled", start: "⚪ Cancelled:", title: "Cancelled" },
  ])("tells the payer about a $state payout found by polling", async (row) => {
    const harness = await start();
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const { prompt, payout } = await confirmPayout(harness, payer, `/pay ${row.number} 4000`);
    const notice = await harness.emulator.waitForMessage((m) => isNotice(m, prompt));
    expect(plainText(notice).startsWith(row.start)).toBe(true);
    expect(plainText(notice)).toContain("4,000 FCFA");
    expect(plainText(notice)).toContain(`Payment id: ${payout.paymentId}`);
    const edited = harness.emulator.message(prompt.chatId, prompt.messageId);
    expect(edited && plainText(edited)).toContain(row.title);

    await quiet(harness);
    expect(notices(harness, prompt)).toHaveLength(1);
    expect(harness.sandbox.callbackAttempts).toHaveLength(0);
    // Settled 150 ms in, first poll 200 ms in: a couple of reads at most, then none.
    const spent = reads(harness, payout.paymentId);
    expect(spent).toBeGreaterThanOrEqual(1);
    expect(spent).toBeLessThanOrEqual(3);
    expect(await harness.app.stores.tracking.dueAt(payout.id)).toBeNull();
    expect((await harness.app.stores.payouts.get(payout.id))?.state).toBe(row.state);
  });

  it("waits out 429s on polling, then settles and notifies once", async () => {
    const harness = await start();
    harness.sandbox.injectFault({
      method: "GET",
      path: /^\/payments\//,
      status: 429,
      retryAfterSeconds: 1,
      times: 2,
    });
    const payer = harness.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const { prompt, payout } = await confirmPayout(harness, payer, "/pay 237670000001 5000");
    const notice = await harness.emulator.waitForMessage((m) => isNotice(m, prompt), 10_000);
    expect(plainText(notice)).toContain("✅ Paid");

    await quiet(harness);
    expect(notices(harness, prompt)).toHaveLength(1);
    expect((await harness.app.stores.payouts.get(payout.id))?.state).toBe("success");
    // Two refused reads and the one that worked; each retry waited the second it was asked to.
    const times = harness.sandbox.requests
      .filter((r) => r.method === "GET" && r.path === `/payments/${payout.paymentId}`)
      .map((r) => r.atMs);
    expect(times).toHaveLength(3);
    for (let i = 1; i < times.length; i++) {
      expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual(950);
    }
  });
});
