/**
 * The daily digest and the availability alert with more pending payouts than a page: they
 * read the payouts in a state from Redis a page at a time (SSCAN), never the whole set at
 * once (SMEMBERS), and still count every payout once. The apps' clock is set to just before
 * DIGEST_HOUR in Douala, then moved past it.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import type { Payout } from "../../../src/model/payout.js";
import { keys } from "../../../src/store/keys.js";
import { shiftedDayClock } from "../../support/clock.js";
import { ADMIN_ID, type Harness, harnessPerTest } from "../../support/harness.js";
import { acceptedPayout } from "../../support/payouts.js";
import { monitorRedis } from "../../support/redis-monitor.js";

const ZONE = "Africa/Douala";
/** More than the 500 a page of the digest and of the alert holds. */
const PENDING = 1_200;

/** The apps' clock: real time, shifted to a time of day in Douala (see shiftedDayClock). */
const clock = shiftedDayClock(ZONE);
const { setLocalTime } = clock;

// Under a minute before the hour: moving past it does not make the tracker look for
// pending payouts again (it does once a minute, with its own read of the whole set).
setLocalTime(19, 59, 40);
const h = harnessPerTest({
  env: {
    DIGEST_HOUR: "20",
    TIME_ZONE: ZONE,
    AVAILABILITY_CHECK_SECONDS: "1",
    STATUS_POLL_INTERVAL_MS: "3600000",
  },
  now: clock.now,
});

/** Stores `count` payouts made by `make(index)`, 300 at a time. */
async function store(count: number, make: (index: number) => Payout): Promise<void> {
  for (let start = 0; start < count; start += 300) {
    const end = Math.min(count, start + 300);
    await Promise.all(
      Array.from({ length: end - start }, (_, i) => h.app.stores.payouts.create(make(start + i))),
    );
  }
}

/** Runs `during` while recording how the state sets of the test's prefix are read. */
async function stateSetReads(harness: Harness, during: () => Promise<void>) {
  const sets = new Set(
    (["pending", "unknown"] as const).map((state) => keys(harness.prefix).stateSet(state)),
  );
  const whole: string[][] = [];
  const paged: string[][] = [];
  const monitor = await monitorRedis((args) => {
    const command = args[0]?.toLowerCase();
    if (!sets.has(args[1] ?? "")) return;
    if (command === "smembers") whole.push(args);
    if (command === "sscan") paged.push(args);
  });
  try {
    await during();
  } finally {
    monitor.close();
  }
  return { whole, paged };
}

describe("reports over many pending payouts", () => {
  it("the digest counts the payouts that need a person, reading them a page at a time", async () => {
    setLocalTime(19, 59, 40);
    h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const atMs = clock.now() - 60_000;
    // Every 200th pending payout was reported stuck: 6 of them, and 4 unknown ones.
    await store(PENDING, (index) =>
      acceptedPayout(atMs, index % 200 === 0 ? { stuckReportedAtMs: atMs } : {}),
    );
    await store(4, () => acceptedPayout(atMs, { state: "unknown" }));

    let text = "";
    const reads = await stateSetReads(h, async () => {
      const digest = h.emulator.waitForMessage(
        (message) => message.chatId === ADMIN_ID && plainText(message).startsWith("📊"),
        15_000,
      );
      setLocalTime(20, 0, 5);
      text = plainText(await digest);
    });

    expect(text).toContain("⚠️ Need a person (10)");
    expect(reads.whole).toEqual([]);
    const pendingPages = reads.paged.filter((args) => args[1]?.endsWith("state:pending"));
    expect(pendingPages.length).toBeGreaterThanOrEqual(2);
    for (const args of reads.paged) expect(Number(args.at(-1))).toBeLessThanOrEqual(500);
  });

  it("the availability alert counts the operator's pending payouts, reading them a page at a time", async () => {
    h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const atMs = clock.now() - 60_000;
    // Orange ones, and MTN collections, are not MTN payouts: not counted.
    await store(PENDING, (index) =>
      index % 4 === 0
        ? acceptedPayout(atMs, { phone: "237690000001", operator: "orange" })
        : index % 4 === 1
          ? acceptedPayout(atMs, { kind: "collection" })
          : acceptedPayout(atMs),
    );

    let text = "";
    const reads = await stateSetReads(h, async () => {
      const down = h.emulator.waitForMessage(
        (m) => m.chatId === ADMIN_ID && plainText(m).includes("payouts are down"),
        15_000,
      );
      h.sandbox.setAvailability("mtn", "disbursement", "SUSPENDED");
      text = plainText(await down);
    });

    expect(text).toContain("Payouts pending with MTN MoMo right now: 600.");
    expect(reads.whole).toEqual([]);
    expect(reads.paged.length).toBeGreaterThanOrEqual(2);
    for (const args of reads.paged) expect(Number(args.at(-1))).toBeLessThanOrEqual(500);
  });
});
