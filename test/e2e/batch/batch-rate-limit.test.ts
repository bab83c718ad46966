/**
 * A batch checked while the shared rate-limit window is full: its look-ups wait for the
 * window to free a slot (however long that is), and every row is paid. None is skipped as
 * "the name could not be looked up" because of our own limit.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { keys } from "../../../src/store/keys.js";
import { harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { testRedis } from "../../support/redis.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;
const LOOKUPS = { method: "GET", path: /^\/data\/userinfo\// } as const;
/** The sandbox environment's limit (PAYMENT_ENV=sandbox), enforced by the sandbox too. */
const LIMIT = 100;
/** The limiter's window: the API's 60 s plus its 1 s margin (limiterWindowMs()). */
const WINDOW_MS = 61_000;
/** How far from leaving the window the slots taken before are: past the client's 20 s wait. */
const FREE_IN_MS = 25_000;

/**
 * Fills the shared window as other replicas would have: `LIMIT` grants, all leaving the
 * window in `FREE_IN_MS` (Redis time, as the limiter's script reads it).
 */
async function fillWindow(prefix: string): Promise<void> {
  const redis = testRedis();
  try {
    const [seconds, micros] = await redis.time();
    const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const scoreMs = nowMs - WINDOW_MS + FREE_IN_MS;
    const key = keys(prefix).rateLimit("payment-api");
    const members = Array.from({ length: LIMIT }, (_, i) => [scoreMs, `other-replica:${i}`]);
    await redis.zadd(key, ...members.flat());
    await redis.pexpire(key, WINDOW_MS);
  } finally {
    await redis.quit();
  }
}

describe("a batch while the rate-limit window is full", () => {
  const h = harnessPerTest({ sandbox: { rateLimitPerMinute: LIMIT } });

  it("waits for slots and pays every row, skipping none for our own limit", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await fillWindow(h.prefix);
    const preview = h.emulator.waitForMessage((m) => plainText(m).includes("is checked"), 60_000);
    const file = "phone,amount\n670000001,1000\n690000001,2000\n670000001,2500\n";
    await payer.uploadDocument("run.csv", "text/csv", Buffer.from(file));
    const shown = await preview;
    const text = plainText(shown);
    expect(text).not.toContain("the name could not be looked up");
    expect(text).toContain("To pay: 3 rows, 5,500 FCFA in all.");
    expect(h.sandbox.countRequests(LOOKUPS)).toBe(3);

    const summary = h.emulator.waitForMessage((m) => plainText(m).includes("is finished"), 30_000);
    const press = await payer.pressButton(shown, 0);
    await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
    const done = plainText(await summary);
    expect(done).toContain("Paid: 3 rows, 5,500 FCFA");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(3);
    const [batch] = await h.app.stores.batches.list({ limit: 1 });
    expect(batch?.tally).toMatchObject({ paid: 3, failed: 0, skipped: 0 });
  }, 90_000);
});
