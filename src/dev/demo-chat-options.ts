/** The options and vocabulary of the terminal demo's chat (see demo-chat.ts). */
import type { DemoCast } from "./demo-cast.js";
import type { DemoIo, Style } from "./demo-render.js";
import type {
  EmulatedUser,
  InlineButton,
  StoredFile,
  TelegramEmulator,
} from "./telegram-emulator/index.js";

/** Why the chat ended: `:quit`, end of input (Ctrl-D, closed pipe), or Ctrl-C / a signal. */
export type ChatEnd = "quit" | "end-of-input" | "interrupt";

/** What a `:command` may do in the chat: act as the person, and wait for the bot's answer. */
export interface ChatScope {
  /** Who the terminal is now. */
  user: EmulatedUser;
  /** Prints a line of the chat's own, at once. */
  note(text: string): void;
  /** Runs `act` (as `user`), then waits until the bot shows something (see replyWaitMs). */
  send(act: () => Promise<unknown>): Promise<void>;
}

/** A `:command` of the chat's own (the demo's :role, :suspend…). */
export interface ChatCommand {
  /** Its line in `:help` (see demo-render's helpLine). */
  help: string;
  /** Does it; resolves with what to tell the person afterwards, if anything. */
  run(args: readonly string[], chat: ChatScope): Promise<string | undefined>;
}

export interface DemoChatOptions {
  emulator: TelegramEmulator;
  user: EmulatedUser;
  io: DemoIo;
  style: Style;
  /** True on a terminal: line editing and a prompt; false on pipes. */
  interactive: boolean;
  /** Commands beyond the built-in ones, by name. */
  commands?: Readonly<Record<string, ChatCommand>>;
  /** Keeps a document the bot sent; resolves with where, which the chat prints. */
  saveDocument?(file: StoredFile): string;
  /** What pressing a button with no callback says (a Mini App's address); default whereItLeads. */
  opens?(button: InlineButton, user: EmulatedUser): string;
  /** Who `:role` can switch to (and `:help` says so); absent: the bot's staff is out of reach. */
  cast?: DemoCast;
  /** How the chat's own lines are marked: `(demo)` by default. */
  label?: string;
  /** After sending a line, how long to wait for the bot before reading the next one. Default 5000. */
  replyWaitMs?: number;
  /**
   * True while something the bot will report on its own is under way (a payment settling in
   * the sandbox): on pipes the next line waits for it too (within replyWaitMs), so a piped
   * transcript shows the Paid notice a person at a terminal would have waited for.
   */
  busy?(): boolean;
}
