/**
 * The schedule store's contract (src/store/schedule-store.ts), run on Redis and on memory
 * through stores.contract.ts: a move is a compare-and-set on the state (and on the next
 * run, for the scheduler), keeps the due index, and queues its notices and audit entry in
 * the same step; a run is written once from each recorded state, whoever tries.
 */
import { describe, expect, it } from "vitest";
import type { AuditDraft } from "../../src/model/audit.js";
import { noticeKey } from "../../src/model/notice.js";
import type { Schedule, ScheduleRun } from "../../src/model/schedule.js";
import { type MakeStores, storesPerTest } from "./store-harness.js";

let counter = 0;

export function sampleSchedule(overrides: Partial<Schedule> = {}): Schedule {
  counter += 1;
  return {
    id: `sched${String(counter).padStart(5, "0")}`,
    state: "awaiting_confirmation",
    recurrence: { kind: "monthly", day: 31, time: "09:00" },
    phone: "237670000001",
    operator: "mtn",
    recipientName: "Jean-Paul Mbarga",
    amount: 5000,
    ownerId: 1002,
    ownerRole: "payer",
    chatId: 1002,
    locale: "en",
    createdAtMs: 1_700_000_000_000 + counter,
    updatedAtMs: 1_700_000_000_000,
    expiresAtMs: 1_700_000_300_000,
    runCount: 0,
    ...overrides,
  };
}

function draft(scheduleId: string): AuditDraft {
  return {
    atMs: Date.now(),
    actorId: 1002,
    actorRole: "payer",
    action: "schedule_confirm",
    details: { scheduleId },
  };
}

/** A retention short enough to wait out on Redis (a clock step on memory). */
const SHORT_RETENTION_MS = 300;

export function describeScheduleStoreContract(makeStores: MakeStores): void {
  describe("schedules' retention", () => {
    const harness = storesPerTest(makeStores, SHORT_RETENTION_MS);

    it("keeps a running schedule and its runs, and forgets them a retention after it ended", async () => {
      const { stores, elapse } = harness;
      const { schedules } = stores;
      const schedule = sampleSchedule();
      await schedules.create(schedule, draft(schedule.id));
      await schedules.move(schedule.id, ["awaiting_confirmation"], "active", {
        nextRunAtMs: 1_000,
        nextRunKey: "202311300900",
      });
      const run: ScheduleRun = {
        scheduleId: schedule.id,
        key: "202311300900",
        atMs: 1_000,
        state: "held",
        heldBecause: "no_account",
        updatedAtMs: 1_000,
      };
      expect((await schedules.writeRun(run, ["none"])).ok).toBe(true);
      await elapse(SHORT_RETENTION_MS * 1.5);
      expect((await schedules.get(schedule.id))?.state).toBe("active");
      expect(await schedules.run(schedule.id, run.key)).toEqual(run);
      expect(await schedules.due(2_000, 10)).toEqual([schedule.id]);

      await schedules.move(schedule.id, ["active"], "finished", {}, { unset: ["nextRunAtMs"] });
      expect((await schedules.get(schedule.id))?.state).toBe("finished");
      expect((await schedules.list(10)).map((listed) => listed.id)).toEqual([schedule.id]);
      await elapse(SHORT_RETENTION_MS * 1.5);
      expect(await schedules.get(schedule.id)).toBeNull();
      expect(await schedules.run(schedule.id, run.key)).toBeNull();
      expect(await schedules.list(10)).toEqual([]);
      expect(await schedules.heldRuns()).toEqual([]);
    });

    it("forgets a schedule never confirmed a retention after it was made", async () => {
      const { stores, elapse } = harness;
      const schedule = sampleSchedule();
      await stores.schedules.create(schedule, draft(schedule.id));
      await elapse(SHORT_RETENTION_MS * 1.5);
      expect(await stores.schedules.get(schedule.id)).toBeNull();
      expect(await stores.schedules.list(10)).toEqual([]);
      expect(
        await stores.schedules.move(schedule.id, ["awaiting_confirmation"], "active", {}),
      ).toEqual({ ok: false, schedule: null });
    });

    it("keeps a schedule resumed after a pause, however long it was paused", async () => {
      const { stores, elapse } = harness;
      const schedule = sampleSchedule();
      await stores.schedules.create(schedule, draft(schedule.id));
      await stores.schedules.move(schedule.id, ["awaiting_confirmation"], "paused", {});
      await elapse(SHORT_RETENTION_MS * 1.5);
      expect((await stores.schedules.get(schedule.id))?.state).toBe("paused");
    });
  });

  describe("schedules", () => {
    const harness = storesPerTest(makeStores, 60_000);

    it("creates once, and moves only from the states given", async () => {
      const { schedules } = harness.stores;
      const schedule = sampleSchedule();
      expect(await schedules.create(schedule, draft(schedule.id))).toBe(true);
      expect(await schedules.create(schedule, draft(schedule.id))).toBe(false);
      expect(await schedules.get(schedule.id)).toEqual(schedule);

      const wrong = await schedules.move(schedule.id, ["paused"], "active", {});
      expect(wrong).toEqual({ ok: false, schedule });
      const moved = await schedules.move(
        schedule.id,
        ["awaiting_confirmation"],
        "active",
        { nextRunAtMs: 1_700_000_500_000, nextRunKey: "202311300900" },
        { audit: draft(schedule.id) },
      );
      expect(moved.ok && moved.schedule.state).toBe("active");
      expect(await schedules.move("nothere", ["active"], "paused", {})).toEqual({
        ok: false,
        schedule: null,
      });
      const audit = await harness.stores.audit.recent(5);
      expect(audit.find((entry) => entry.action === "schedule_confirm")?.details).toMatchObject({
        scheduleId: schedule.id,
        from: "awaiting_confirmation",
        to: "active",
      });
    });

    it("keeps a scheduled batch's rows with it, and has none for any other schedule", async () => {
      const { schedules } = harness.stores;
      const rows = [
        { row: 2, phone: "237670000001", operator: "mtn" as const, name: "Jean", amount: 5000 },
        {
          row: 3,
          phone: "237690000002",
          operator: "orange" as const,
          name: "Awa",
          amount: 7000,
          note: "May",
        },
      ];
      const batch = { sourceId: "abcdefgh", fileName: "pay.csv", rowCount: 2 };
      const schedule = sampleSchedule({ amount: 12_000, batch });
      expect(await schedules.create(schedule, draft(schedule.id), rows)).toBe(true);
      expect(await schedules.rows(schedule.id)).toEqual(rows);
      expect((await schedules.get(schedule.id))?.batch).toEqual(batch);
      const single = sampleSchedule();
      await schedules.create(single, draft(single.id));
      expect(await schedules.rows(single.id)).toEqual([]);
    });

    it("lists an active schedule as due from its next run, and no other", async () => {
      const { schedules } = harness.stores;
      const schedule = sampleSchedule({
        state: "active",
        nextRunAtMs: 2_000,
        nextRunKey: "202311300900",
      });
      await schedules.create(schedule, draft(schedule.id));
      // Created active: indexed once moved (a patch only, the same state).
      await schedules.move(schedule.id, ["active"], "active", {});
      expect(await schedules.due(1_999, 10)).toEqual([]);
      expect(await schedules.due(2_000, 10)).toEqual([schedule.id]);
      expect(await schedules.upcoming(1_000, 3_000, 10)).toEqual([
        { id: schedule.id, atMs: 2_000 },
      ]);
      expect(await schedules.upcoming(2_000, 3_000, 10)).toEqual([]);
      await schedules.move(schedule.id, ["active"], "paused", {});
      expect(await schedules.due(5_000, 10)).toEqual([]);
      await schedules.move(schedule.id, ["paused"], "active", {}, { unset: ["nextRunAtMs"] });
      expect(await schedules.due(5_000, 10)).toEqual([]);
      expect((await schedules.get(schedule.id))?.nextRunAtMs).toBeUndefined();
    });

    it("moves on from a run only while that run is still the next one", async () => {
      const { schedules } = harness.stores;
      const schedule = sampleSchedule({
        state: "active",
        nextRunAtMs: 1,
        nextRunKey: "202311300900",
      });
      await schedules.create(schedule, draft(schedule.id));
      const next = { nextRunAtMs: 2, nextRunKey: "202312310900" };
      const options = { expectRunKey: "202311300900" };
      const first = schedules.move(schedule.id, ["active"], "active", next, options);
      const second = schedules.move(schedule.id, ["active"], "active", next, options);
      const results = await Promise.all([first, second]);
      expect(results.filter((result) => result.ok)).toHaveLength(1);
    });

    it("moves a schedule waiting for approval only while its request is still the one read", async () => {
      const { schedules } = harness.stores;
      const schedule = sampleSchedule({ state: "awaiting_approval", expiresAtMs: 5_000 });
      await schedules.create(schedule, draft(schedule.id));
      const stale = await schedules.move(
        schedule.id,
        ["awaiting_approval"],
        "active",
        {},
        {
          expectExpiresAtMs: 4_000,
        },
      );
      expect(stale.ok).toBe(false);
      expect(stale.schedule?.state).toBe("awaiting_approval");
      const current = await schedules.move(
        schedule.id,
        ["awaiting_approval"],
        "active",
        {},
        {
          expectExpiresAtMs: 5_000,
        },
      );
      expect(current.ok).toBe(true);
    });

    it("moves a schedule only while the signers it counts still stand", async () => {
      const { schedules, staff } = harness.stores;
      const schedule = sampleSchedule({ state: "awaiting_approval" });
      await schedules.create(schedule, draft(schedule.id));
      await staff.set(7101, "approver", undefined, schedule.createdAtMs - 1);
      await staff.set(7102, "admin", undefined, schedule.createdAtMs - 1);
      const signers = {
        userIds: [7101, 7102],
        roles: ["approver", "admin"] as const,
        askedAtMs: schedule.createdAtMs,
      };
      await staff.set(7101, "viewer");
      const demoted = await schedules.move(
        schedule.id,
        ["awaiting_approval"],
        "active",
        {},
        {
          signers,
        },
      );
      expect(demoted).toMatchObject({ ok: false, schedule: { state: "awaiting_approval" } });
      await staff.set(7101, "approver", undefined, schedule.createdAtMs - 1);
      const moved = await schedules.move(
        schedule.id,
        ["awaiting_approval"],
        "active",
        {},
        {
          signers,
        },
      );
      expect(moved.ok).toBe(true);
    });

    it("writes a run once from each recorded state, queues its notice, and indexes it while held", async () => {
      const { schedules, outbox } = harness.stores;
      const run: ScheduleRun = {
        scheduleId: "schedA1",
        key: "202611300900",
        atMs: 1,
        state: "held",
        heldBecause: "name_changed",
        updatedAtMs: 1,
      };
      const notice = {
        kind: "schedule" as const,
        what: "run_held" as const,
        scheduleId: "schedA1",
        runKey: run.key,
      };
      const attempts = await Promise.all(
        [1, 2, 3].map(() => schedules.writeRun(run, ["none"], { notices: [notice] })),
      );
      expect(attempts.filter((attempt) => attempt.ok)).toHaveLength(1);
      expect(await outbox.dueAt(noticeKey(notice))).not.toBeNull();
      expect(await schedules.heldRuns()).toEqual([run]);
      const sent = await schedules.writeRun(
        { ...run, state: "sent", payoutId: "schedA1-202611300900" },
        ["held"],
      );
      expect(sent.ok).toBe(true);
      expect(await schedules.heldRuns()).toEqual([]);
      expect(await schedules.writeRun({ ...run, state: "skipped" }, ["held"])).toMatchObject({
        ok: false,
        run: { state: "sent" },
      });
      expect((await schedules.run("schedA1", run.key))?.state).toBe("sent");
    });

    it("lists the runs sending since before a time, oldest first, until they move on", async () => {
      const { schedules } = harness.stores;
      const run = (scheduleId: string, updatedAtMs: number): ScheduleRun => ({
        scheduleId,
        key: "202611300900",
        atMs: 1,
        state: "sending",
        payoutId: `${scheduleId}-202611300900`,
        updatedAtMs,
      });
      await schedules.writeRun(run("schedS2", 2_000), ["none"]);
      await schedules.writeRun(run("schedS1", 1_000), ["none"]);
      await schedules.writeRun(run("schedS3", 9_000), ["none"]);
      expect(await schedules.sendingRuns(5_000, 10)).toEqual([
        run("schedS1", 1_000),
        run("schedS2", 2_000),
      ]);
      expect(await schedules.sendingRuns(5_000, 1)).toEqual([run("schedS1", 1_000)]);
      const sent = await schedules.writeRun({ ...run("schedS1", 3_000), state: "sent" }, [
        "sending",
      ]);
      expect(sent.ok).toBe(true);
      expect(await schedules.sendingRuns(10_000, 10)).toEqual([
        run("schedS2", 2_000),
        run("schedS3", 9_000),
      ]);
    });

    it("writes a run only while its schedule is in the states given, when asked", async () => {
      const { schedules } = harness.stores;
      const schedule = sampleSchedule();
      await schedules.create(schedule, draft(schedule.id));
      const run: ScheduleRun = {
        scheduleId: schedule.id,
        key: "202611300900",
        atMs: 1,
        state: "sending",
        updatedAtMs: 1,
      };
      // Not active (still awaiting confirmation): refused, nothing recorded.
      const refused = await schedules.writeRun(run, ["none", "due"], { scheduleIn: ["active"] });
      expect(refused).toEqual({ ok: false, run: null });
      const other = await schedules.writeRun({ ...run, scheduleId: "gone1" }, ["none"], {
        scheduleIn: ["active"],
      });
      expect(other.ok).toBe(false);
      const written = await schedules.writeRun(run, ["none", "due"], {
        scheduleIn: [schedule.state],
      });
      expect(written.ok).toBe(true);
      // Sending: Skip (from none, due or held) cannot change it.
      const skip = await schedules.writeRun({ ...run, state: "skipped" }, ["none", "due", "held"]);
      expect(skip).toMatchObject({ ok: false, run: { state: "sending" } });
    });

    it("lists schedules newest first, leaving the deleted out", async () => {
      const { schedules } = harness.stores;
      const older = sampleSchedule({ state: "active" });
      const newer = sampleSchedule({ state: "active" });
      const gone = sampleSchedule({ state: "active" });
      for (const schedule of [older, newer, gone])
        await schedules.create(schedule, draft(schedule.id));
      await schedules.move(gone.id, ["active"], "deleted", {});
      expect((await schedules.list(10)).map((schedule) => schedule.id)).toEqual([
        newer.id,
        older.id,
      ]);
    });
  });
}
