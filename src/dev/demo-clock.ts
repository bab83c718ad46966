/**
 * The demo's clock: this machine's, moved ahead by `:later MINUTES`, so what is due later
 * (a schedule's run a minute ahead, an expiry) happens now instead of being waited for.
 * The bot reads it (startApp's `now`: its scheduler, expiries, the times it shows); the
 * sandbox, Redis and the emulator keep this machine's time. It only ever moves ahead.
 */
import type { ChatCommand } from "./demo-chat-options.js";
import { helpLine } from "./demo-render.js";

/** The most `:later` moves at once: a day (the runs of a daily test stay in sight). */
const MAX_MINUTES = 1440;

export class DemoClock {
  #aheadMs = 0;

  /** The bot's time, in ms since the epoch. */
  readonly now = (): number => Date.now() + this.#aheadMs;

  /** How far ahead of this machine's clock it is. */
  get aheadMs(): number {
    return this.#aheadMs;
  }

  moveAhead(ms: number): void {
    this.#aheadMs += ms;
  }
}

/** `:later [MINUTES]` (default 1): moves the bot's clock ahead and says to when. */
export function laterCommand(clock: DemoClock, timeZone: string): ChatCommand {
  const time = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    day: "2-digit",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
  return {
    help: helpLine(
      ":later [MINUTES]",
      "move the bot's clock MINUTES ahead (default 1): a schedule due by then runs now",
    ),
    async run([minutesArg = "1"], chat) {
      const minutes = Number(minutesArg);
      if (!/^\d{1,4}$/.test(minutesArg) || minutes < 1 || minutes > MAX_MINUTES) {
        return `Usage: :later [MINUTES], a whole number from 1 to ${MAX_MINUTES}, e.g. :later 2`;
      }
      clock.moveAhead(minutes * 60_000);
      const ahead = Math.round(clock.aheadMs / 60_000);
      chat.note(
        `The bot's clock is now ${time.format(clock.now())} (${timeZone}), ${ahead} min ahead of this machine's: what was due by then happens now.`,
      );
      // Waits for what falls due (a schedule's run) to show, as after a message.
      await chat.send(async () => {});
      return undefined;
    },
  };
}
