import { describe, expect, it } from "vitest";
import {
  nextScheduleState,
  runPayoutId,
  SCHEDULE_MOVES,
  SCHEDULE_STATES,
  type ScheduleMove,
} from "../../../src/model/schedule.js";

describe("the schedule's moves", () => {
  it("leads each move from its states only, to one state", () => {
    for (const move of Object.keys(SCHEDULE_MOVES) as ScheduleMove[]) {
      const rule = SCHEDULE_MOVES[move];
      for (const state of SCHEDULE_STATES) {
        const allowed = (rule.from as readonly string[]).includes(state);
        expect(nextScheduleState(state, move), `${move} from ${state}`).toBe(
          allowed ? rule.to : null,
        );
      }
    }
  });

  it("never moves out of a deleted, cancelled, expired or rejected schedule", () => {
    for (const state of ["deleted", "cancelled", "expired", "rejected"] as const) {
      for (const move of Object.keys(SCHEDULE_MOVES) as ScheduleMove[]) {
        expect(nextScheduleState(state, move)).toBeNull();
      }
    }
  });

  it("pauses and resumes, and deletes a finished one but never one awaiting a decision", () => {
    expect(nextScheduleState("active", "pause")).toBe("paused");
    expect(nextScheduleState("paused", "resume")).toBe("active");
    expect(nextScheduleState("finished", "delete")).toBe("deleted");
    expect(nextScheduleState("awaiting_approval", "delete")).toBeNull();
    expect(nextScheduleState("awaiting_confirmation", "confirm")).toBe("active");
  });

  it("names a run's payout after the schedule and the run's local time", () => {
    expect(runPayoutId("Ab3dEf9hIj", "202612240900")).toBe("Ab3dEf9hIj-202612240900");
  });
});
