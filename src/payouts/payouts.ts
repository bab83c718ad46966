/**
 * The payout steps, built together from one set of options: what the bot's features, the
 * tracker and the webhook call. Each step is its own module; this only wires them.
 */
import { silentLogger } from "../logger.js";
import { AnswerRecords } from "./answer-records.js";
import { Lookups } from "./lookups.js";
import { Preparation } from "./prepare.js";
import { Resolution } from "./resolution.js";
import { Settlement } from "./settlement.js";
import { Submission } from "./submission.js";
import type { PayoutsOptions, StepContext } from "./types.js";

export interface Payouts {
  readonly lookups: Lookups;
  readonly preparation: Preparation;
  readonly submission: Submission;
  readonly settlement: Settlement;
  readonly resolution: Resolution;
}

export function createPayouts(options: PayoutsOptions): Payouts {
  const context: StepContext = {
    gateway: options.gateway,
    stores: options.stores,
    log: options.logger ?? silentLogger,
    now: options.now ?? Date.now,
  };
  const lookups = new Lookups({
    gateway: options.gateway,
    now: context.now,
    availabilityCacheMs: options.availabilityCacheMs,
  });
  const records = new AnswerRecords(context, options.onNoticeQueued ?? (() => {}));
  return {
    lookups,
    preparation: new Preparation(context, lookups, options.confirmationTtlSeconds),
    submission: new Submission(context, records, options.statusPollIntervalMs),
    settlement: new Settlement(context),
    resolution: new Resolution(context),
  };
}
