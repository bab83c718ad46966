import { describe, expect, it } from "vitest";
import { digestChartCaption, digestChartSvg } from "../../../../src/bot/views/digest-chart.js";
import { translator } from "../../../../src/i18n.js";
import type { Payout } from "../../../../src/model/payout.js";
import { chartDays, weekVolume } from "../../../../src/payouts/loops/digest-week.js";
import { createMemoryStores } from "../../../../src/store/memory.js";
import { startOfDayMs } from "../../../../src/time.js";
import { acceptedPayout } from "../../../support/payouts.js";

const ZONE = "Africa/Douala";
const DAY = "2025-03-02";
const MIDNIGHT = startOfDayMs(DAY, ZONE);
const NOW = MIDNIGHT + 20 * 3_600_000;
const DAY_MS = 86_400_000;

async function setup() {
  const stores = createMemoryStores({ retentionMs: 30 * DAY_MS, now: () => NOW });
  const add = (createdAtMs: number, overrides: Partial<Payout>) =>
    stores.payouts.create(acceptedPayout(createdAtMs, overrides));
  return { stores, add };
}

describe("chartDays", () => {
  it("is the seven days ending with the digest's day, across a month's end", () => {
    expect(chartDays(DAY)).toEqual([
      "2025-02-24",
      "2025-02-25",
      "2025-02-26",
      "2025-02-27",
      "2025-02-28",
      "2025-03-01",
      "2025-03-02",
    ]);
  });
});

describe("weekVolume", () => {
  it("sums completed payouts by the day they were created and by operator", async () => {
    const { stores, add } = await setup();
    await add(MIDNIGHT + 3_600_000, { state: "success", amount: 5000 });
    await add(MIDNIGHT + 7_200_000, { state: "success", amount: 2000, operator: "orange" });
    await add(MIDNIGHT - 2 * DAY_MS + 1, { state: "success", amount: 4000 });
    // The first day's first instant counts; the instant before it does not.
    await add(MIDNIGHT - 6 * DAY_MS, { state: "success", amount: 100 });
    await add(MIDNIGHT - 6 * DAY_MS - 1, { state: "success", amount: 9999 });
    // Not paid volume: failed, pending, a collection, and anything after now.
    await add(MIDNIGHT + 1, { state: "failed", amount: 9999 });
    await add(MIDNIGHT + 1, { state: "pending", amount: 9999 });
    await add(MIDNIGHT + 1, { state: "success", amount: 9999, kind: "collection" });
    await add(NOW + 1, { state: "success", amount: 9999 });

    const week = await weekVolume(stores, { day: DAY, timeZone: ZONE, nowMs: NOW });

    expect(week.days).toEqual(chartDays(DAY));
    expect(week.byOperator).toEqual({
      mtn: [100, 0, 0, 0, 4000, 0, 5000],
      orange: [0, 0, 0, 0, 0, 0, 2000],
    });
  });
});

describe("the digest's chart", () => {
  const week = {
    days: chartDays(DAY),
    byOperator: { mtn: [0, 0, 0, 0, 4000, 0, 5000], orange: [0, 0, 0, 0, 0, 0, 2000] },
  };

  it("draws one bar per operator and day with paid volume, named in the reader's language", () => {
    const svg = digestChartSvg(translator("fr"), week);
    const bars = [...svg.matchAll(/<title>([^<]*)<\/title>/g)].map((match) => match[1]);
    expect(bars).toEqual([
      "MTN MoMo 4\u202F000\u00A0FCFA",
      "MTN MoMo 5\u202F000\u00A0FCFA",
      "Orange Money 2\u202F000\u00A0FCFA",
    ]);
    expect(svg).toContain("Payé ces 7 derniers jours, par opérateur");
    expect(svg).toContain("dim. 2");
  });

  it("says so when nothing was paid, and escapes what it writes", () => {
    const empty = {
      days: week.days,
      byOperator: { mtn: week.days.map(() => 0), orange: week.days.map(() => 0) },
    };
    const svg = digestChartSvg(translator("en"), empty);
    expect(svg).toContain("No completed payouts these 7 days");
    expect(svg).not.toContain("<title>");
    expect(digestChartCaption(translator("en"), week)).toBe(
      "📈 Paid over the last 7 days: MTN MoMo 9,000 FCFA · Orange Money 2,000 FCFA",
    );
  });
});
