/**
 * A run that finds the Payment API's rate limit used up by the time its request would leave
 * (found by review: with 60 or 120 runs due in one minute, one run each time was recorded
 * `sent` and its payout then refused by our own limiter, "rate limit reached", never to be
 * tried again). Waiting for a slot is not a refusal by the API: the run waits for one, as a
 * batch row does, and its one request leaves when the window has room.
 *
 * The window is the real one (61 s): the test fills it while the run's name look-up is
 * answered slowly, so it takes a little over a minute.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { keys } from "../../../src/store/keys.js";
import { limiterWindowMs, RedisRateLimiter } from "../../../src/store/redis/rate-limiter.js";
import { pressAndWait, showPrompt } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { testRedisUrl } from "../../support/redis.js";
import { dayAhead, isIn, movedClock, ZONE } from "../../support/schedules.js";

const clock = movedClock();
const h = harnessPerTest({
  env: { TIME_ZONE: ZONE, SCHEDULE_REMINDER_HOURS: "0" },
  now: clock.now,
});

const USER_INFO = /^\/data\/userinfo\//;
const DISBURSE = { method: "POST", path: "/disburse" } as const;

const connections: Redis[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((redis) => redis.quit()));
});

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await sleep(50);
  }
}

describe("a scheduled run and the rate limit", () => {
  it("waits for a slot when the window is full as its request would leave, and is then sent once", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const { date, atMs } = dayAhead(2, "09:00");
    const prompt = await showPrompt(h.emulator, payer, `/schedule ${date} 670000001 5000`);
    await pressAndWait(h.emulator, payer, prompt, "Active");
    const [schedule] = await h.app.stores.schedules.list(1);
    if (!schedule?.nextRunKey) throw new Error("no schedule");

    // The look-up is slow; while it is answered, the window fills up (other replicas' work).
    const lookups = () => h.sandbox.countRequests({ method: "GET", path: USER_INFO });
    const before = lookups();
    h.sandbox.injectFault({ method: "GET", path: USER_INFO, delayMs: 1_500, times: 1 });
    clock.setTo(atMs + 1_000);
    await until(() => lookups() > before, 20_000);
    const redis = new Redis(testRedisUrl());
    connections.push(redis);
    const others = new RedisRateLimiter({
      redis,
      key: keys(h.prefix).rateLimit("payment-api"),
      limit: h.app.config.payment.rateLimitPerMinute,
      windowMs: limiterWindowMs(),
    });
    while ((await others.tryAcquire()).granted);

    const runOf = () => h.app.stores.schedules.run(schedule.id, schedule.nextRunKey ?? "");
    // While it waits for room, the run is not recorded sent, and nothing has left.
    await sleep(3_000);
    expect((await runOf())?.state).toBe("sending");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
    // The run is sent, not refused: its payout reaches the API once the window has room.
    await h.emulator.waitForMessage(isIn(PAYER_ID, "Paid"), 100_000);
    const run = await runOf();
    expect(run?.state).toBe("sent");
    const payout = await h.app.stores.payouts.get(run?.payoutId ?? "");
    expect(payout?.state).toBe("success");
    expect(payout?.errorMessage).toBeUndefined();
    await sleep(1_000);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
  }, 150_000);
});
