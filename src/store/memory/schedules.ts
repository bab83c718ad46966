/** Schedules and their runs in process memory: the same semantics as RedisScheduleStore. */
import type { AuditDraft, AuditEntry } from "../../model/audit.js";
import { noticeKey } from "../../model/notice.js";
import {
  RUNNING_SCHEDULE_STATES,
  type RunState,
  type Schedule,
  type ScheduledRow,
  ScheduledRowSchema,
  type SchedulePatch,
  type ScheduleRun,
  ScheduleRunSchema,
  ScheduleSchema,
  type ScheduleState,
} from "../../model/schedule.js";
import type {
  RunWriteOptions,
  RunWriteResult,
  ScheduleMoveOptions,
  ScheduleMoveResult,
  ScheduleStore,
  ScheduleWriteOptions,
} from "../schedule-store.js";
import { checkInput } from "../schemas.js";

export interface MemoryScheduleStoreOptions {
  now: () => number;
  enqueueNotice: (key: string, atMs: number) => void;
  audit: (entry: Omit<AuditEntry, "id">) => void;
}

export class MemoryScheduleStore implements ScheduleStore {
  readonly #options: MemoryScheduleStoreOptions;
  readonly #schedules = new Map<string, Schedule>();
  readonly #runs = new Map<string, ScheduleRun>();
  readonly #rows = new Map<string, ScheduledRow[]>();

  constructor(options: MemoryScheduleStoreOptions) {
    this.#options = options;
  }

  async create(
    schedule: Schedule,
    audit: AuditDraft,
    rows: readonly ScheduledRow[] = [],
  ): Promise<boolean> {
    const record = checkInput(ScheduleSchema, schedule, "schedule");
    if (this.#schedules.has(record.id)) return false;
    this.#schedules.set(record.id, structuredClone(record));
    const checked = rows.map((row) => checkInput(ScheduledRowSchema, row, "row"));
    if (checked.length > 0) this.#rows.set(record.id, structuredClone(checked));
    this.#options.audit(structuredClone(audit));
    return true;
  }

  async rows(id: string): Promise<ScheduledRow[]> {
    return structuredClone(this.#rows.get(id) ?? []);
  }

  async get(id: string): Promise<Schedule | null> {
    const schedule = this.#schedules.get(id);
    return schedule ? structuredClone(schedule) : null;
  }

  async move(
    id: string,
    from: readonly ScheduleState[],
    to: ScheduleState,
    patch: SchedulePatch,
    options: ScheduleMoveOptions = {},
  ): Promise<ScheduleMoveResult> {
    const current = this.#schedules.get(id);
    if (!current) return { ok: false, schedule: null };
    const keyMatches =
      options.expectRunKey === undefined || current.nextRunKey === options.expectRunKey;
    if (!from.includes(current.state) || !keyMatches) {
      return { ok: false, schedule: structuredClone(current) };
    }
    const nowMs = this.#options.now();
    const moved: Schedule = {
      ...current,
      ...structuredClone(patch),
      state: to,
      updatedAtMs: nowMs,
    };
    for (const field of options.unset ?? []) delete moved[field];
    this.#schedules.set(id, checkInput(ScheduleSchema, moved, "schedule"));
    this.#written(options, nowMs, { from: current.state, to });
    return { ok: true, schedule: structuredClone(moved) };
  }

  async list(limit: number): Promise<Schedule[]> {
    return [...this.#schedules.values()]
      .filter((schedule) => schedule.state !== "deleted")
      .sort((a, b) => b.createdAtMs - a.createdAtMs)
      .slice(0, limit)
      .map((schedule) => structuredClone(schedule));
  }

  async due(atMs: number, limit: number): Promise<string[]> {
    return [...this.#schedules.values()]
      .filter(
        (schedule) =>
          RUNNING_SCHEDULE_STATES.includes(schedule.state) &&
          schedule.nextRunAtMs !== undefined &&
          schedule.nextRunAtMs <= atMs,
      )
      .sort((a, b) => (a.nextRunAtMs ?? 0) - (b.nextRunAtMs ?? 0))
      .slice(0, limit)
      .map((schedule) => schedule.id);
  }

  async upcoming(
    fromMs: number,
    toMs: number,
    limit: number,
  ): Promise<Array<{ id: string; atMs: number }>> {
    return [...this.#schedules.values()]
      .flatMap((schedule) =>
        RUNNING_SCHEDULE_STATES.includes(schedule.state) &&
        schedule.nextRunAtMs !== undefined &&
        schedule.nextRunAtMs > fromMs &&
        schedule.nextRunAtMs <= toMs
          ? [{ id: schedule.id, atMs: schedule.nextRunAtMs }]
          : [],
      )
      .sort((a, b) => a.atMs - b.atMs)
      .slice(0, limit);
  }

  async run(scheduleId: string, key: string): Promise<ScheduleRun | null> {
    const run = this.#runs.get(`${scheduleId}:${key}`);
    return run ? structuredClone(run) : null;
  }

  async writeRun(
    run: ScheduleRun,
    from: ReadonlyArray<RunState | "none">,
    options: RunWriteOptions = {},
  ): Promise<RunWriteResult> {
    const record = checkInput(ScheduleRunSchema, run, "schedule run");
    const id = `${record.scheduleId}:${record.key}`;
    const current = this.#runs.get(id);
    const schedule = this.#schedules.get(record.scheduleId);
    const scheduleOk =
      options.scheduleIn === undefined ||
      (schedule !== undefined && options.scheduleIn.includes(schedule.state));
    if (!scheduleOk || !from.includes(current?.state ?? "none")) {
      return { ok: false, run: current ? structuredClone(current) : null };
    }
    this.#runs.set(id, structuredClone(record));
    this.#written(options, this.#options.now(), {
      from: current?.state ?? "none",
      to: record.state,
    });
    return { ok: true, run: structuredClone(record) };
  }

  async heldRuns(): Promise<ScheduleRun[]> {
    return [...this.#runs.values()]
      .filter((run) => run.state === "held")
      .map((run) => structuredClone(run));
  }

  #written(options: ScheduleWriteOptions, nowMs: number, states: { from: string; to: string }) {
    for (const notice of options.notices ?? []) {
      this.#options.enqueueNotice(noticeKey(notice), nowMs);
    }
    if (options.audit) {
      const { audit } = options;
      this.#options.audit({ ...audit, details: { ...audit.details, ...states } });
    }
  }
}
