/**
 * Schedules and their runs in process memory: the same semantics as RedisScheduleStore,
 * its expiry included (on the injected clock): a schedule is kept while it may still run,
 * and for the retention once it ended (or after it was made, while never confirmed); then
 * it goes, with its runs.
 */
import { type SignerStanding, signersStand } from "../../model/approval-rules.js";
import type { AuditDraft, AuditEntry } from "../../model/audit.js";
import { noticeKey } from "../../model/notice.js";
import {
  ENDED_SCHEDULE_STATES,
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
  /** How long an ended schedule (or one never confirmed) is kept. */
  retentionMs: number;
  enqueueNotice: (key: string, atMs: number) => void;
  audit: (entry: Omit<AuditEntry, "id">) => void;
  /** A staff member's role and grant time now (`ScheduleMoveOptions.signers`); null: none. */
  standing: (userId: number) => SignerStanding | null;
}

export class MemoryScheduleStore implements ScheduleStore {
  readonly #options: MemoryScheduleStoreOptions;
  readonly #schedules = new Map<string, Schedule>();
  readonly #runs = new Map<string, ScheduleRun>();
  /** When each schedule that will go goes (absent: kept). */
  readonly #expiresAtMs = new Map<string, number>();
  readonly #rows = new Map<string, ScheduledRow[]>();

  constructor(options: MemoryScheduleStoreOptions) {
    this.#options = options;
  }

  /** Forgets the schedules whose time is up, and their runs (Redis's key expiry). */
  #forgetExpired(): void {
    const nowMs = this.#options.now();
    for (const [id, atMs] of this.#expiresAtMs) {
      if (atMs > nowMs) continue;
      this.#expiresAtMs.delete(id);
      this.#schedules.delete(id);
      this.#rows.delete(id);
      for (const [key, run] of this.#runs) if (run.scheduleId === id) this.#runs.delete(key);
    }
  }

  async create(
    schedule: Schedule,
    audit: AuditDraft,
    rows: readonly ScheduledRow[] = [],
  ): Promise<boolean> {
    const record = checkInput(ScheduleSchema, schedule, "schedule");
    this.#forgetExpired();
    if (this.#schedules.has(record.id)) return false;
    this.#schedules.set(record.id, structuredClone(record));
    // A prompt never confirmed goes after the retention; Confirm keeps it (see move).
    this.#expiresAtMs.set(record.id, this.#options.now() + this.#options.retentionMs);
    const checked = rows.map((row) => checkInput(ScheduledRowSchema, row, "row"));
    if (checked.length > 0) this.#rows.set(record.id, structuredClone(checked));
    this.#options.audit(structuredClone(audit));
    return true;
  }

  async rows(id: string): Promise<ScheduledRow[]> {
    return structuredClone(this.#rows.get(id) ?? []);
  }

  async get(id: string): Promise<Schedule | null> {
    this.#forgetExpired();
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
    this.#forgetExpired();
    const current = this.#schedules.get(id);
    if (!current) return { ok: false, schedule: null };
    const keyMatches =
      options.expectRunKey === undefined || current.nextRunKey === options.expectRunKey;
    const requestMatches =
      options.expectExpiresAtMs === undefined || current.expiresAtMs === options.expectExpiresAtMs;
    const signersStood =
      options.signers === undefined || signersStand(options.signers, this.#options.standing);
    if (!from.includes(current.state) || !keyMatches || !requestMatches || !signersStood) {
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
    if (ENDED_SCHEDULE_STATES.includes(to))
      this.#expiresAtMs.set(id, nowMs + this.#options.retentionMs);
    else this.#expiresAtMs.delete(id);
    this.#written(options, nowMs, { from: current.state, to });
    return { ok: true, schedule: structuredClone(moved) };
  }

  async list(limit: number): Promise<Schedule[]> {
    this.#forgetExpired();
    return [...this.#schedules.values()]
      .filter((schedule) => schedule.state !== "deleted")
      .sort((a, b) => b.createdAtMs - a.createdAtMs)
      .slice(0, limit)
      .map((schedule) => structuredClone(schedule));
  }

  async due(atMs: number, limit: number): Promise<string[]> {
    this.#forgetExpired();
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
    this.#forgetExpired();
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
    this.#forgetExpired();
    const run = this.#runs.get(`${scheduleId}:${key}`);
    return run ? structuredClone(run) : null;
  }

  async writeRun(
    run: ScheduleRun,
    from: ReadonlyArray<RunState | "none">,
    options: RunWriteOptions = {},
  ): Promise<RunWriteResult> {
    const record = checkInput(ScheduleRunSchema, run, "schedule run");
    this.#forgetExpired();
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

  async sendingRuns(beforeMs: number, limit: number): Promise<ScheduleRun[]> {
    this.#forgetExpired();
    return [...this.#runs.values()]
      .filter((run) => run.state === "sending" && run.updatedAtMs <= beforeMs)
      .sort((a, b) => a.updatedAtMs - b.updatedAtMs)
      .slice(0, limit)
      .map((run) => structuredClone(run));
  }

  async heldRuns(): Promise<ScheduleRun[]> {
    this.#forgetExpired();
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
