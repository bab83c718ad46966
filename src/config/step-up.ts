/**
 * The step-up variables (read by config/index.ts):
 *
 * - STEP_UP_THRESHOLD_XAF: a whole number of XAF from 1 up; unset or blank: no PIN is
 *   ever asked. At or over it, a payout's Confirm and Approve need the person's PIN,
 *   typed in the Mini App.
 * - WEBAPP_URL: the Mini App's public https URL (loopback http on one machine: webapp.ts). Required with a threshold: the PIN is
 *   only ever typed there, so without it nothing that big could be confirmed.
 */
import { MAX_AMOUNT_XAF } from "../model/money.js";
import { textOf } from "./env-values.js";
import { isWebAppUrlAllowed } from "./webapp.js";

export interface StepUpConfig {
  /** At or over it, Confirm and Approve need the PIN (STEP_UP_THRESHOLD_XAF). */
  thresholdXaf: number;
  /** Where the Mini App is served (WEBAPP_URL): https, or http on a loopback host. */
  webAppUrl: string;
}

/** STEP_UP_THRESHOLD_XAF with WEBAPP_URL; every problem is pushed to `problems`. */
export function stepUpConfig(env: NodeJS.ProcessEnv, problems: string[]): StepUpConfig | undefined {
  const raw = textOf(env.STEP_UP_THRESHOLD_XAF);
  if (raw === undefined) return undefined;
  const thresholdXaf = Number(raw);
  const found: string[] = [];
  if (!/^\d+$/.test(raw) || thresholdXaf < 1 || thresholdXaf > MAX_AMOUNT_XAF) {
    found.push(
      `STEP_UP_THRESHOLD_XAF: must be a whole number of XAF from 1 to ${MAX_AMOUNT_XAF}, or unset for no PIN (got "${raw}")`,
    );
  }
  const webAppUrl = textOf(env.WEBAPP_URL);
  if (webAppUrl === undefined) {
    found.push(
      "STEP_UP_THRESHOLD_XAF: needs WEBAPP_URL, the Mini App's https URL where the PIN is typed; set WEBAPP_URL, or unset STEP_UP_THRESHOLD_XAF",
    );
  }
  problems.push(...found);
  // A WEBAPP_URL that is not https (nor loopback http) is reported by config/webapp.ts.
  if (found.length > 0 || webAppUrl === undefined || !isWebAppUrlAllowed(webAppUrl)) {
    return undefined;
  }
  return { thresholdXaf, webAppUrl };
}
