/**
 * What /events shows and what the admins are told when the receiver answers 410 Gone.
 * The endpoint is shown without its query string (where a careless URL might carry a
 * token); the secret is never anywhere near a message. Same rules as common.ts: everything
 * from the receiver goes in escaped by `t()`.
 */
import { html, type Translate } from "../../i18n.js";
import { formatCount } from "../../model/money.js";
import type { EventsSummary } from "../../store/redis/events.js";
import { clampHtml } from "../telegram/clamp.js";
import type { View } from "./common.js";

/** Scheme, host and path of the endpoint: what an admin needs to recognise it. */
export function endpointText(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return "?";
  }
}

export function eventsStatusView(t: Translate, summary: EventsSummary & { url: string }): View {
  const count = (value: number) => formatCount(value, t.locale);
  const since = t.time(summary.stateSinceMs ?? 0);
  const state =
    summary.state === "active"
      ? t("events.state_active")
      : summary.state === "paused"
        ? t("events.state_paused", { time: since })
        : t("events.state_disabled", { time: since });
  const lines = [
    t("events.title"),
    t("events.endpoint", { url: endpointText(summary.url) }),
    state,
    t("events.delivered", { count: count(summary.deliveredLastDay) }),
    t("events.waiting", { count: count(summary.waiting) }),
  ];
  if (summary.oldestWaitingMs !== undefined) {
    lines.push(t("events.oldest", { time: t.time(summary.oldestWaitingMs) }));
  }
  if (summary.dropped > 0) lines.push(t("events.dropped", { count: count(summary.dropped) }));
  lines.push("");
  if (summary.failures.length === 0) lines.push(t("events.no_failures"));
  else {
    lines.push(t("events.failures"));
    for (const failure of summary.failures) {
      lines.push(
        t("events.failure_line", {
          time: t.time(failure.atMs),
          type: failure.type,
          attempt: String(failure.attempt),
          answer: failure.answer,
        }),
      );
    }
  }
  return { text: clampHtml(lines.join("\n")) };
}

export function eventsDisabledView(t: Translate, atMs: number): View {
  return { text: t("events.disabled_alert", { time: html(t.time(atMs)) }) };
}
