/**
 * The Mini App on one machine: `npm run demo` and `npm run emulator` build the page and
 * print an address that opens it in a browser as the chat's user, its init data signed
 * with the emulator's bot token as Telegram would sign it. The page is served over
 * loopback http, which the emulator and WEBAPP_URL accept for a loopback host only
 * (Telegram itself opens only https). Pressing a Mini App button in the terminal chat
 * prints the address Telegram would open; `:pin` types a PIN into the step-up page by
 * its API, as the page does.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildWebPage } from "../../web/build.js";
import { DEFAULT_WEBAPP_AUTH_MAX_AGE_SECONDS } from "../config/webapp.js";
import type { ChatCommand } from "./demo-chat-options.js";
import { buttonsOf, helpLine, whereItLeads } from "./demo-render.js";
import {
  type EmulatedUser,
  type InlineButton,
  type SentMessage,
  signWebAppInitData,
  webAppLaunchUrl,
} from "./telegram-emulator/index.js";

/** Builds the page into a fresh temporary folder; answers the folder. */
export async function buildDevWebPage(): Promise<string> {
  return buildWebPage(await mkdtemp(join(tmpdir(), "payout-bot-webapp-")));
}

/** The lines that tell the person how to open the Mini App as `user`. */
export function miniAppLines(
  appUrl: string,
  token: string,
  user: { id: number; firstName: string; languageCode?: string },
): string[] {
  const link = webAppLaunchUrl(appUrl, signWebAppInitData(token, user));
  const minutes = DEFAULT_WEBAPP_AUTH_MAX_AGE_SECONDS / 60;
  return [
    `Mini App (the dashboard), as ${user.firstName} (id ${user.id}), valid ${minutes} minutes; open in a browser:`,
    `  ${link}`,
  ];
}

/** Init data for the terminal's person, dated by `now` (the bot's clock in the demo). */
function initDataOf(token: string, user: EmulatedUser, now: () => number): string {
  const { id, firstName, languageCode } = user;
  return signWebAppInitData(
    token,
    { id, firstName, ...(languageCode ? { languageCode } : {}) },
    new Date(now()),
  );
}

/**
 * What pressing a Mini App (`web_app`) button says in the terminal chat: the address
 * Telegram would open, with init data signed for the person; for others, where they lead.
 * `hint` is added under it (the demo's `:pin`).
 */
export function webAppOpener(
  token: string,
  options: { now?: () => number; hint?: string } = {},
): (button: InlineButton, user: EmulatedUser) => string {
  const now = options.now ?? Date.now;
  return (button, user) => {
    if (!button.web_app) return whereItLeads(button);
    const link = webAppLaunchUrl(button.web_app.url, initDataOf(token, user, now));
    const lines = [`This button opens the Mini App as ${user.firstName}; open in a browser:`, link];
    if (options.hint && new URL(button.web_app.url).searchParams.has("step_up")) {
      lines.push(options.hint);
    }
    return lines.join("\n");
  };
}

/** The step-up a Mini App button opens: `?step_up=confirm.ID` → its action and id. */
function stepUpOf(button: InlineButton): { page: string; action: string; id: string } | null {
  const page = button.web_app?.url;
  if (!page) return null;
  const target = new URL(page).searchParams.get("step_up") ?? "";
  const dot = target.indexOf(".");
  if (dot < 1) return null;
  return { page, action: target.slice(0, dot), id: target.slice(dot + 1) };
}

/** The newest step-up button among `messages`. */
function latestStepUp(messages: readonly SentMessage[]) {
  for (const message of [...messages].reverse()) {
    for (const button of buttonsOf(message)) {
      const found = stepUpOf(button);
      if (found) return found;
    }
  }
  return null;
}

interface ApiAnswer {
  status: number;
  json: Record<string, unknown>;
}

/** What the page says for an answer that did not go through. */
function refusal({ status, json }: ApiAnswer): string {
  const error = typeof json.error === "string" ? json.error : "error";
  if (error === "wrong_pin") return `Wrong PIN: ${String(json.left)} tries left. Nothing moved.`;
  if (error === "pin_locked") {
    return `The PIN is locked until ${new Date(Number(json.untilMs)).toISOString()}; the admins were alerted. Nothing moved.`;
  }
  return `The Mini App's API answered ${status} ${error}. Nothing moved.`;
}

/**
 * `:pin PIN`: opens the newest 🔐 button of the person's chat and types PIN there, through
 * the page's own API calls (`Authorization: tma <initData>`): the item, the PIN set on
 * first use (typed twice), then the Confirm or Approve with it. Nothing here skips a
 * check: the server does them all, as for the page in a browser.
 */
export function pinCommand(
  token: string,
  messagesOf: (chatId: number) => readonly SentMessage[],
  now: () => number = Date.now,
): ChatCommand {
  return {
    help: helpLine(
      ":pin PIN",
      "type PIN (6 digits) in the Mini App of the latest 🔐 button, as its page does",
    ),
    async run([pin = ""], chat) {
      if (!/^\d{6}$/.test(pin)) return "Usage: :pin PIN, six digits, e.g. :pin 482913";
      const target = latestStepUp(messagesOf(chat.user.privateChat.id));
      if (!target) return "No 🔐 button in this chat: pay an amount at or over the PIN threshold.";
      const authorization = `tma ${initDataOf(token, chat.user, now)}`;
      const call = async (path: string, body?: unknown): Promise<ApiAnswer> => {
        const response = await fetch(new URL(`api/${path}`, target.page), {
          method: body === undefined ? "GET" : "POST",
          headers: {
            authorization,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
        return { status: response.status, json };
      };
      const path = `step-up/${target.action}/${encodeURIComponent(target.id)}`;
      const item = await call(path);
      if (item.status !== 200) return refusal(item);
      const pinState = (item.json.pin as { state?: string } | undefined)?.state;
      if (pinState === "none") {
        const set = await call("step-up/pin", { pin, repeat: pin });
        if (set.status !== 201) return refusal(set);
        chat.note("Your PIN is set (typed twice, as the page asks the first time).");
      }
      let answer: ApiAnswer = { status: 0, json: {} };
      await chat.send(async () => {
        answer = await call(path, { pin });
      });
      if (answer.status !== 200) return refusal(answer);
      return `The Mini App took the PIN: ${String(answer.json.outcome)}.`;
    },
  };
}
