/**
 * A bot process killed (SIGKILL) while a batch is being paid, and started again: the next
 * process resumes the batch where it stood, every row's request leaves once and only once,
 * the rows whose requests were in flight when it died are never sent again (they end
 * unknown, for a person), and the payer gets one summary.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { keys } from "../../../src/store/keys.js";
import { PAYER_ID } from "../../support/harness.js";
import { startBot, waitUntil } from "../../support/processes.js";
import { testRedis } from "../../support/redis.js";
import { lapsePollerLease, worldPerTest } from "../../support/world.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;
const ROWS = 12;

describe("a batch when its bot process dies", () => {
  const world = worldPerTest();

  it("sends every row once across the restart, never again a row that was in flight", async () => {
    // Slow payment requests: some are on their way when the process is killed.
    world.sandbox.injectFault({ ...DISBURSE, delayMs: 600, times: Number.POSITIVE_INFINITY });
    const first = await startBot(world.env);
    const payer = world.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const preview = world.emulator.waitForMessage(
      (m) => plainText(m).includes("is checked"),
      20_000,
    );
    const rows = Array.from({ length: ROWS }, (_, index) => `6700002${10 + index},1500`);
    await payer.uploadDocument(
      "payroll.csv",
      "text/csv",
      Buffer.from(`phone,amount\n${rows.join("\n")}\n`),
    );
    await payer.pressButton(await preview, 0);
    await waitUntil(() => world.sandbox.countRequests(DISBURSE) >= 2, "the first requests");
    await first.process.kill("SIGKILL");
    const sentBefore = world.sandbox.countRequests(DISBURSE);
    expect(sentBefore).toBeLessThan(ROWS);

    // The requests in flight reach the sandbox (the payments exist); nobody hears the answers.
    await waitUntil(
      () => world.sandbox.snapshot().payments.length === sentBefore,
      "the in-flight payments to exist",
    );
    const [batch] = await world.stores.batches.list({ limit: 1 });
    if (!batch) throw new Error("no batch stored");
    expect(batch.state).toBe("running");
    const stranded = await world.stores.payouts.listInState("submitting");
    expect(stranded.length).toBeGreaterThan(0);
    // Down past the stranded limit, and the dead process's leases lapsed.
    const longAgoMs = Date.now() - 6 * 60_000;
    for (const payout of stranded) {
      await world.stores.payouts.update(payout.id, {
        submittedAtMs: longAgoMs,
        sentAtMs: longAgoMs,
      });
    }
    const redis = testRedis();
    await redis.del(keys(world.prefix).lease(`batch:${batch.id}`));
    await redis.quit();
    await lapsePollerLease(world);

    const summary = world.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("is finished"),
      60_000,
    );
    await startBot(world.env);
    const done = plainText(await summary);

    // Every row once: twelve requests, twelve different numbers.
    const numbers = world.sandbox.requests
      .filter((request) => request.method === "POST" && request.path.endsWith("/disburse"))
      .map((request) => (request.body as { phoneNumber: string }).phoneNumber);
    expect(numbers).toHaveLength(ROWS);
    expect(new Set(numbers).size).toBe(ROWS);
    // The rows in flight at the kill are unknown, reported, and were not sent again.
    const unknown = stranded.length;
    expect(done).toContain(
      `Paid ${ROWS - unknown} · failed 0 · pending 0 · unknown ${unknown} · skipped 0`,
    );
    for (const payout of stranded) {
      expect((await world.stores.payouts.get(payout.id))?.state).toBe("unknown");
    }
    // One summary, no message per row.
    const summaries = world.emulator
      .messages(PAYER_ID)
      .filter((m) => plainText(m).includes("is finished"));
    expect(summaries).toHaveLength(1);
  });
});
