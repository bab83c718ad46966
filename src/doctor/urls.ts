/**
 * The public URLs the bot hands out or posts to, asked from here: the Mini App's page (it
 * must answer with the page: Telegram opens it in a webview) and the events receiver.
 */
import type { Config } from "../config/index.js";
import { probe, shownUrl } from "./http-probe.js";
import { type CheckResult, fail, ok, warn } from "./report.js";

/** WEBAPP_URL: https (the config allows http on loopback only), and answering 2xx. */
export async function webAppCheck(config: Config): Promise<CheckResult> {
  const name = "mini app url";
  const url = config.webApp.url;
  if (url === undefined) {
    return warn(
      name,
      "WEBAPP_URL unset: /dashboard and the PIN step are off",
      "Set WEBAPP_URL to https://<your host>/app/ to offer the Mini App.",
    );
  }
  const shown = shownUrl(url);
  const answer = await probe(url);
  if (!answer.answered) {
    return fail(
      name,
      `${shown} did not answer (${answer.reason})`,
      "Start the bot and the HTTPS proxy in front of it, or fix WEBAPP_URL.",
    );
  }
  if (answer.status >= 200 && answer.status < 300) {
    const scheme = url.startsWith("https:") ? "" : ", http on loopback: the local emulator only";
    return ok(name, `${shown} answers ${answer.status}${scheme}`);
  }
  if (answer.status >= 300 && answer.status < 400) {
    return warn(
      name,
      `${shown} answers ${answer.status} (a redirect)`,
      "Set WEBAPP_URL to where the page is, so the webview opens it at once.",
    );
  }
  return fail(
    name,
    `${shown} answers ${answer.status}`,
    "Route WEBAPP_URL to the bot's /app/ page, through the HTTPS proxy.",
  );
}

/**
 * EVENTS_URL, asked with an empty event that carries no signature: a receiver that checks
 * signatures refuses it with a 4xx, which shows it is there. A 404 or 405 is no receiver at
 * that path; a 2xx means it took an unsigned event, which anyone could send.
 */
export async function eventsCheck(config: Config): Promise<CheckResult> {
  const name = "events url";
  const url = config.events?.url;
  if (url === undefined) return warn(name, "EVENTS_URL unset: no signed events are sent");
  const shown = shownUrl(url);
  const answer = await probe(url, {
    method: "POST",
    body: "{}",
    headers: { "content-type": "application/json" },
  });
  if (!answer.answered) {
    return fail(
      name,
      `${shown} did not answer (${answer.reason})`,
      "Start the receiver, or fix EVENTS_URL.",
    );
  }
  const status = answer.status;
  if (status === 404 || status === 405 || status >= 500) {
    return fail(
      name,
      `${shown} answered ${status} to an unsigned test POST`,
      "Point EVENTS_URL at the receiver's POST route.",
    );
  }
  if (status >= 200 && status < 300) {
    return warn(
      name,
      `${shown} accepted an unsigned, empty event (${status})`,
      "Make the receiver verify the webhook-signature header with EVENTS_SECRET (see docs/events.md).",
    );
  }
  return ok(name, `${shown} answers, and refused an unsigned test POST (${status})`);
}
