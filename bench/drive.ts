/**
 * Emulated users driving a bot under test in a closed loop (each user starts its next flow
 * as soon as the last one ended), with every timed step, the rates and the bot's CPU time
 * recorded: what the /pay and latency benchmarks measure.
 */
import type { EmulatedUser } from "../src/dev/telegram-emulator/index.js";
import type { BotUnderTest } from "./bots.js";
import { echoRoundTrip, payFlow } from "./flows.js";

export const PAY_COMMAND = "/pay 237670000001 5000";
/** A bound on flows per run whatever the speed. */
const MAX_FLOWS_PER_USER = 100_000;

export interface Samples {
  /** Per step kind, every sample in ms. */
  steps: Map<string, number[]>;
  /** One per round: updates handled per second. */
  updatesPerSecond: number[];
  /** One per round: complete flows (or echo answers) per second. */
  flowsPerSecond: number[];
  /** One per round: CPU time of the bot's process per update handled, in ms. */
  cpuMsPerUpdate: number[];
  /** One per round: the bot's read and write system calls per update (empty off Linux). */
  readCallsPerUpdate: number[];
  writeCallsPerUpdate: number[];
}

export function emptySamples(): Samples {
  return {
    steps: new Map(),
    updatesPerSecond: [],
    flowsPerSecond: [],
    cpuMsPerUpdate: [],
    readCallsPerUpdate: [],
    writeCallsPerUpdate: [],
  };
}

/** One flow of one user: its timed steps (ms by step name). */
export type Flow = (user: EmulatedUser, bot: BotUnderTest) => Promise<Record<string, number>>;

/** /pay → prompt → Confirm → Pending, each action `thinkMs` after the bot's last message. */
export function payFlowThinking(thinkMs: number): Flow {
  return async (user, bot) => {
    const timing = await payFlow(user, bot.watcher, PAY_COMMAND, thinkMs);
    return { prompt: timing.promptMs, confirm: timing.confirmMs };
  };
}

/** One message to the echo bot, `thinkMs` after its last answer. */
export function echoFlowThinking(thinkMs: number): Flow {
  return async (user, bot) => ({ echo: await echoRoundTrip(user, bot.watcher, thinkMs) });
}

export const PAY_FLOW = payFlowThinking(0);
export const ECHO_FLOW = echoFlowThinking(0);

/**
 * Closed loop: each of the first `users` users runs `flow` back to back until
 * `durationMs` is up; with `into`, the steps, rates and the bot's CPU time are recorded.
 * Resolves with the number of updates handled.
 */
export async function drive(
  bot: BotUnderTest,
  flow: Flow,
  users: number,
  durationMs: number,
  into?: Samples,
): Promise<number> {
  const before = into ? await bot.usage() : undefined;
  const startedAt = performance.now();
  const stopAt = startedAt + durationMs;
  let flows = 0;
  let updates = 0;
  await Promise.all(
    bot.users.slice(0, users).map(async (user) => {
      for (let n = 0; n < MAX_FLOWS_PER_USER && performance.now() < stopAt; n++) {
        const steps = await flow(user, bot);
        flows += 1;
        // Each timed step is one update (a message or a button press).
        for (const [step, ms] of Object.entries(steps)) {
          updates += 1;
          if (!into) continue;
          const list = into.steps.get(step) ?? [];
          list.push(ms);
          into.steps.set(step, list);
        }
      }
    }),
  );
  if (!into) return updates;
  const seconds = (performance.now() - startedAt) / 1000;
  into.flowsPerSecond.push(flows / seconds);
  into.updatesPerSecond.push(updates / seconds);
  if (!before) return updates;
  const after = await bot.usage();
  into.cpuMsPerUpdate.push((after.cpuMs - before.cpuMs) / updates);
  if (after.readCalls !== null && before.readCalls !== null) {
    into.readCallsPerUpdate.push((after.readCalls - before.readCalls) / updates);
  }
  if (after.writeCalls !== null && before.writeCalls !== null) {
    into.writeCallsPerUpdate.push((after.writeCalls - before.writeCalls) / updates);
  }
  return updates;
}
