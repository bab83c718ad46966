/**
 * What needs no network: the configuration parsed as `start` parses it (a failure there
 * is exit 2, before any other check), and the time zone the merchant's days follow.
 */
import type { Config } from "../config/index.js";
import { DEFAULT_TIME_ZONE } from "../time.js";
import { type CheckResult, ok } from "./report.js";

export function configurationCheck(config: Config, envFile: string | undefined): CheckResult {
  const mode = config.telegram.webhookUrl ? "webhook" : "long polling";
  const from = envFile ? `the environment and ${envFile}` : "the environment";
  const admins = config.staff.filter((member) => member.role === "admin").length;
  return ok(
    "configuration",
    `read from ${from}: ${config.payment.env}, ${mode}, ${config.staff.length} staff (${admins} admin${admins === 1 ? "" : "s"})`,
  );
}

/** The zone's name, its offset now, and the time there, so a wrong zone shows at a glance. */
export function timeZoneCheck(config: Config, nowMs: number): CheckResult {
  const zone = config.timeZone;
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZoneName: "longOffset",
  }).formatToParts(nowMs);
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((p) => p.type === type)?.value ?? "";
  const offset = part("timeZoneName").replace(/^GMT$/, "GMT+00:00").replace("GMT", "UTC");
  const source = zone === DEFAULT_TIME_ZONE ? " (the default)" : "";
  return ok(
    "time zone",
    `${zone}${source}, ${offset}, ${part("hour")}:${part("minute")} there now`,
  );
}
