/**
 * What handling a scheduled run comes to (runs.ts, scheduler.ts), and what a press on one of
 * its buttons (Send anyway, Skip) comes to, for the chat and the Mini App to say.
 */
import type { Payout } from "../../model/payout.js";

/** What handling one run came to. */
export type RunOutcome =
  | "sent"
  | "held"
  | "missed"
  | "skipped"
  | "retrying"
  | "paused"
  | "not_due"
  | "already"
  /** Its payout was cancelled (held over the limit) or expired: it can never be sent. */
  | "not_sendable";

/** What a press on a run's button came to. */
export type RunPress =
  | { outcome: "sent" }
  | { outcome: "skipped" }
  | { outcome: "not_sent"; why: RunOutcome }
  | { outcome: "too_late" }
  | { outcome: "already" }
  | { outcome: "forbidden" }
  | { outcome: "not_allowed" }
  | { outcome: "not_found" }
  /** Send anyway: the schedule is paused, deleted or finished. */
  | { outcome: "inactive" }
  /** Send anyway: the number has no account now. */
  | { outcome: "no_account" }
  /** Send anyway: the name could not be looked up; nothing sent, the run still held. */
  | { outcome: "lookup_failed" }
  /** Send anyway: the registered name changed again; the run held again with it. */
  | { outcome: "held_again" }
  /** Send anyway: the run's payout was cancelled (over the limit) or expired. */
  | { outcome: "not_sendable" }
  /** Send anyway at or over a threshold: its payout waits for an approver, or the PIN. */
  | { outcome: "approval_requested" }
  | { outcome: "confirm_with_pin"; payout: Payout };
