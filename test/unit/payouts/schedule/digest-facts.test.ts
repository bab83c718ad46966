import { describe, expect, it } from "vitest";
import { digestView } from "../../../../src/bot/views/digest.js";
import { stripHtml, translator } from "../../../../src/i18n.js";
import { DailyDigest } from "../../../../src/payouts/loops/digest.js";
import { scheduleDigest } from "../../../../src/payouts/schedule/digest-facts.js";
import { createMemoryStores } from "../../../../src/store/memory.js";
import { sampleSchedule } from "../../../contract/schedule-store.contract.js";

const ZONE = "Africa/Douala";
/** Wednesday 25 November 2026, 20:00 in Douala. */
const NOW = Date.UTC(2026, 10, 25, 19);

describe("scheduleDigest", () => {
  it("counts the active schedules' runs due tomorrow and the runs held, and the digest shows them", async () => {
    const stores = createMemoryStores({ retentionMs: 86_400_000, now: () => NOW });
    const draft = {
      atMs: NOW,
      actorId: 1002,
      actorRole: "payer" as const,
      action: "schedule_prompt" as const,
    };
    const thursday = sampleSchedule({
      state: "active",
      recurrence: { kind: "weekly", weekday: 4, time: "09:00" },
      amount: 5000,
    });
    const once = sampleSchedule({
      state: "active",
      recurrence: { kind: "once", date: "2026-11-26", time: "23:30" },
      amount: 7000,
    });
    const friday = sampleSchedule({
      state: "active",
      recurrence: { kind: "weekly", weekday: 5, time: "09:00" },
    });
    const paused = sampleSchedule({
      state: "paused",
      recurrence: { kind: "weekly", weekday: 4, time: "09:00" },
    });
    for (const schedule of [thursday, once, friday, paused])
      await stores.schedules.create(schedule, draft);
    await stores.schedules.writeRun(
      {
        scheduleId: friday.id,
        key: "202611200900",
        atMs: NOW - 86_400_000 * 5,
        state: "held",
        heldBecause: "name_changed",
        updatedAtMs: NOW,
      },
      ["none"],
    );
    expect(await scheduleDigest(stores, "2026-11-25", ZONE)).toEqual({
      tomorrowRuns: 2,
      tomorrowXaf: 12_000,
      heldRuns: 1,
    });

    const digest = new DailyDigest({
      stores,
      timeZone: ZONE,
      now: () => NOW,
      sources: { schedules: (day) => scheduleDigest(stores, day, ZONE) },
    });
    const text = stripHtml(
      digestView(translator("en", ZONE), await digest.facts("2026-11-25")).text,
    );
    expect(text).toContain("Tomorrow: 2 runs, 12,000 FCFA");
    expect(text).toContain("Held, waiting for their owner: 1 run");
  });
});
