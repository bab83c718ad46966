/**
 * How the terminal demo shows the chat: bot messages with their HTML turned into text
 * (bold etc. as ANSI styles on a terminal, plain text otherwise), inline buttons as
 * numbered choices, edits, deletions and callback answers, plus the banner and help.
 */
import type { MessageEntity } from "telegraf/types";
import { formatAmount } from "../model/money.js";
import { formatPhone } from "../model/phone.js";
import { SCRIPTED_NUMBERS, type ScriptedOutcome } from "../sandbox/index.js";
import { DEMO_ROLES } from "./demo-options.js";
import { parseTelegramHtml, plainText } from "./telegram-emulator/html.js";
import type { CallbackAnswer, InlineButton, SentMessage } from "./telegram-emulator/types.js";
import { flatButtons } from "./telegram-emulator/wire.js";

/** The streams the chat reads from and writes to (a terminal, or pipes). */
export interface DemoIo {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/** True when `stream` is a terminal. */
export function isTty(stream: object): boolean {
  return "isTTY" in stream && stream.isTTY === true;
}

export interface Style {
  /** ANSI styles (a terminal that wants them); plain text otherwise. */
  readonly ansi: boolean;
}

/** SGR codes that switch a style on and off without resetting the others. */
const ENTITY_SGR: Partial<Record<MessageEntity["type"], [on: number, off: number]>> = {
  bold: [1, 22],
  italic: [3, 23],
  underline: [4, 24],
  strikethrough: [9, 29],
  code: [36, 39],
  pre: [36, 39],
  text_link: [4, 24],
};

function sgr(code: number): string {
  return `\u001b[${code}m`;
}

export function bold(text: string, style: Style): string {
  return style.ansi ? `${sgr(1)}${text}${sgr(22)}` : text;
}

function dim(text: string, style: Style): string {
  return style.ansi ? `${sgr(2)}${text}${sgr(22)}` : text;
}

/** Inserts each entity's on/off codes at its offsets (UTF-16 units, as JS strings count). */
function styled(text: string, entities: readonly MessageEntity[]): string {
  const marks: Array<{ at: number; close: boolean; code: string }> = [];
  for (const entity of entities) {
    const codes = ENTITY_SGR[entity.type];
    if (!codes) continue;
    marks.push({ at: entity.offset, close: false, code: sgr(codes[0]) });
    marks.push({ at: entity.offset + entity.length, close: true, code: sgr(codes[1]) });
  }
  // At one position, styles that end are closed before the ones that start are opened.
  marks.sort((a, b) => a.at - b.at || Number(b.close) - Number(a.close));
  let out = "";
  let from = 0;
  for (const mark of marks) {
    out += text.slice(from, mark.at) + mark.code;
    from = mark.at;
  }
  return out + text.slice(from);
}

/** The text a user reads in a bot message, styled on a terminal. */
function messageText(message: SentMessage, style: Style): string {
  if (!style.ansi || message.parseMode !== "HTML") return plainText(message);
  try {
    const parsed = parseTelegramHtml(message.text);
    return styled(parsed.text, parsed.entities);
  } catch {
    return plainText(message);
  }
}

/** `[1] ✅ Confirm  [2] ✖️ Cancel`; a link button shows where it leads. */
function buttonsLine(buttons: readonly InlineButton[], style: Style): string {
  return buttons
    .map((button, index) => {
      const link = button.callback_data === undefined && button.url ? ` (${button.url})` : "";
      return `${bold(`[${index + 1}]`, style)} ${button.text}${link}`;
    })
    .join("  ");
}

/** What pressing a link button says: where it leads (nothing is sent to the bot). */
export function whereItLeads(button: InlineButton): string {
  return `This button opens ${button.url ?? "nothing"}: nothing to send to the bot.`;
}

/** The message's inline buttons as they are now (none once deleted). */
export function buttonsOf(message: SentMessage): InlineButton[] {
  return message.deleted ? [] : flatButtons(message.replyMarkup);
}

/** Prefixes the first line and indents the others under it. */
function block(prefix: string, prefixWidth: number, body: string): string {
  const indent = " ".repeat(prefixWidth);
  return body
    .split("\n")
    .map((line, index) => (index === 0 ? prefix + line : line === "" ? "" : indent + line))
    .join("\n");
}

/** A new or edited bot message: `bot #4 › text…`, then its buttons. */
export function renderBotMessage(
  message: SentMessage,
  change: "new" | "edit",
  style: Style,
): string {
  const label = `bot #${message.messageId}${change === "edit" ? " (edited)" : ""} › `;
  const previous = message.history[message.history.length - 2];
  const onlyKeyboard =
    change === "edit" && previous !== undefined && previous.text === message.text;
  const buttons = buttonsOf(message);
  let body = onlyKeyboard
    ? buttons.length > 0
      ? "(new buttons)"
      : "(buttons removed)"
    : messageText(message, style);
  if (message.document) {
    const { fileName, bytes } = message.document;
    body = `📎 ${fileName} (${bytes.length} bytes)${body === "" ? "" : `\n${body}`}`;
  }
  if (buttons.length > 0) body += `\n${buttonsLine(buttons, style)}`;
  return block(bold(label, style), label.length, body);
}

export function renderDeleted(message: SentMessage, style: Style): string {
  return dim(`bot #${message.messageId} (deleted)`, style);
}

/** A toast (`ⓘ Sending…`) or an alert; an answer without text shows nothing. */
export function renderCallbackAnswer(answer: CallbackAnswer, style: Style): string | undefined {
  if (!answer.text) return undefined;
  return answer.showAlert ? bold(`ⓘ Alert: ${answer.text}`, style) : `ⓘ ${answer.text}`;
}

const OUTCOME_HINT: Record<ScriptedOutcome, string> = {
  success: "to succeed",
  failed: "to fail",
  pending: "to stay pending",
  no_account: "for a number with no account",
  canceled: "to be cancelled by the operator",
};

/** `try 670000001 to succeed, 670000002 to fail, …` from the sandbox's scripted MTN numbers. */
function scriptedHint(): string {
  const seen = new Set<ScriptedOutcome>();
  const parts: string[] = [];
  for (const entry of SCRIPTED_NUMBERS) {
    if (seen.has(entry.outcome)) continue;
    seen.add(entry.outcome);
    parts.push(`${entry.phone.slice(3)} ${OUTCOME_HINT[entry.outcome]}`);
  }
  return `Try ${parts.join(", ")}.`;
}

/** Every scripted number, one per line. */
function scriptedTable(): string {
  return SCRIPTED_NUMBERS.map((entry) => {
    const name = entry.name ? `${entry.name.firstName} ${entry.name.lastName}` : "(no account)";
    return `  ${entry.phone.slice(3)}  ${formatPhone(entry.phone).padEnd(17)}  ${entry.operator.padEnd(6)}  ${name.padEnd(19)}  ${entry.behaviour}`;
  }).join("\n");
}

export interface BannerFacts {
  userName: string;
  userId: number;
  /** From this amount a payout waits for an approver; undefined: no approvals. */
  approvalThresholdXaf: number | undefined;
  /** From this amount Confirm and Approve need the PIN, in the Mini App; undefined: none. */
  stepUpThresholdXaf?: number | undefined;
  role: string;
  languageCode: string;
  storage: string;
  logFile: string;
  /** False: the log file is removed when the demo stops cleanly. */
  keepLogFile: boolean;
  settleDelayMs: number;
}

/** How to see four-eyes approval in the demo. */
function approvalHint(thresholdXaf: number | undefined): string {
  if (thresholdXaf === undefined) return "off (APPROVAL_THRESHOLD_XAF unset).";
  const threshold = formatAmount(thresholdXaf, "en");
  return `${threshold} or more waits for a second person: as the payer (--role payer) pay that much, then :role approver and /approvals.`;
}

/** What the demo prints once everything runs. */
export function banner(facts: BannerFacts, style: Style): string {
  const seconds = (facts.settleDelayMs / 1000).toLocaleString("en");
  return [
    bold("Payout bot demo", style) +
      ": the real bot, a local Payment API sandbox and an emulated Telegram, on this machine.",
    `  You:    ${facts.userName} (Telegram id ${facts.userId}, language ${facts.languageCode}), role ${bold(facts.role, style)}`,
    `  Store:  ${facts.storage}`,
    `  Logs:   ${facts.logFile}${facts.keepLogFile ? "" : " (removed when the demo stops cleanly)"}`,
    `  Money:  payments stay pending ${seconds} s, then the sandbox settles them and calls the bot's webhook.`,
    `  ${scriptedHint()} Any other MTN or Orange number succeeds.`,
    `  Approval: ${approvalHint(facts.approvalThresholdXaf)}`,
    ...(facts.stepUpThresholdXaf === undefined
      ? []
      : [
          `  PIN:    ${formatAmount(facts.stepUpThresholdXaf, "en")} or more is confirmed with a PIN in the Mini App: press 🔐, then :pin and six digits.`,
        ]),
    "",
    "Type what you would type in Telegram: /pay 670000001 5000, /help, /history, /export, /lang fr;",
    "save a recipient with /save jean 670000001, then pay by alias: /pay jean 5000 rent;",
    "schedule one for the next minute (/schedule DD/MM HH:MM jean 2500), then :later to be there.",
    "Type a button's number to press it; :help for demo commands; :quit or Ctrl-C to leave.",
  ].join("\n");
}

/** A `:command` line of `:help`: `  :role [ROLE]         what it does`. */
export function helpLine(usage: string, what: string): string {
  return `  ${usage.padEnd(20)} ${what}`;
}

/** The `:role` line of `:help`. */
export const ROLE_HELP = [
  helpLine(":role [ROLE]", "who you are, or become the demo's person with that role:"),
  `                       ${DEMO_ROLES.join(", ")} (each has a chat of their own)`,
].join("\n");

/** The answer to `:help`; `extra`: the lines of the chat's own commands (the demo's :role…). */
export function demoHelp(style: Style, extra: readonly string[] = []): string {
  return [
    `${bold("Chat commands", style)} (everything else goes to the bot as a Telegram message):`,
    "  1, 2, …              press that button of the latest message with buttons",
    "  :press MSG N         press button N of bot message #MSG",
    "  :say TEXT            send TEXT as it is (e.g. a lone number)",
    "  :reply MSG TEXT      send TEXT as a reply to bot message #MSG (e.g. a rejection's reason)",
    ...extra,
    "  :help                this text",
    "  :quit                stop everything and leave (also Ctrl-C, or end of input)",
    "",
    `${bold("Scripted numbers", style)} of the sandbox:`,
    scriptedTable(),
  ].join("\n");
}
