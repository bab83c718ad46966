/**
 * What the scheduled-payout end-to-end tests share: the apps' clock (real time plus a shift
 * a test moves), a day ahead as `/schedule` takes it, a message predicate, and more bot
 * processes on the same Redis prefix and clock.
 */
import { afterEach } from "vitest";
import { type App, startApp } from "../../src/app.js";
import { loadConfig } from "../../src/config/index.js";
import { plainText, type SentMessage } from "../../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../../src/logger.js";
import { atTime } from "../../src/payouts/schedule/when.js";
import { dayOf } from "../../src/time.js";
import type { Harness } from "./harness.js";

/** The zone the schedule tests run in. */
export const ZONE = "Africa/Douala";

/** Real time plus a shift the test moves; back to real time after each test. */
export interface MovedClock {
  readonly now: () => number;
  /** The apps read `ms` now (forward or back). */
  setTo(ms: number): void;
  /** The apps read `ms` now, unless they already read later: never back. */
  moveTo(ms: number): void;
}

export function movedClock(): MovedClock {
  let shiftMs = 0;
  afterEach(() => {
    shiftMs = 0;
  });
  return {
    now: () => Date.now() + shiftMs,
    setTo(ms) {
      shiftMs = ms - Date.now();
    },
    moveTo(ms) {
      shiftMs = Math.max(shiftMs, ms - Date.now());
    },
  };
}

/** `days` ahead in ZONE as `DD/MM/YYYY`, and the instant of `time` on that day. */
export function dayAhead(days: number, time: string): { date: string; atMs: number } {
  const day = dayOf(Date.now() + days * 86_400_000, ZONE);
  const [year, month, date] = day.split("-");
  return { date: `${date}/${month}/${year}`, atMs: atTime(day, time, ZONE) };
}

/** A message of the bot's in `chatId` whose text contains `text`. */
export function isIn(chatId: number, text: string) {
  return (message: SentMessage) => message.chatId === chatId && plainText(message).includes(text);
}

/**
 * Starts another bot process on `h`'s Redis prefix, services and `now`; every one started
 * is stopped after each test.
 */
export function replicasOf(h: Harness, now: () => number): () => Promise<App> {
  const replicas: App[] = [];
  afterEach(async () => {
    await Promise.all(replicas.splice(0).map((app) => app.stop()));
  });
  return async () => {
    const app = await startApp({
      config: loadConfig(h.env, "start"),
      logger: silentLogger,
      pollTimeoutSeconds: 1,
      loopTickMs: 50,
      http: false,
      now,
    });
    replicas.push(app);
    return app;
  };
}
