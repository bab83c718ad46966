/**
 * The chat of the terminal demo: each line typed is what the emulated user sends (or a
 * button press, or a `:command` of the demo), and every bot message, edit and callback
 * answer in the user's chat is printed as it arrives, so notifications pushed by the bot
 * appear on their own. Works on a terminal (line editing, prompt kept under the output)
 * and on pipes (no raw mode, no prompt, input echoed so the output reads as a transcript).
 */
import { clearLine, createInterface, cursorTo, type Interface } from "node:readline";
import type { ChatEnd, DemoChatOptions } from "./demo-chat-options.js";
import { DEMO_ROLES, isDemoRole } from "./demo-options.js";
import {
  buttonsOf,
  demoHelp,
  ROLE_HELP,
  renderBotMessage,
  renderCallbackAnswer,
  renderDeleted,
  whereItLeads,
} from "./demo-render.js";
import { QuietWatch } from "./quiet.js";
import type { CallbackAnswer, EmulatedUser, SentMessage } from "./telegram-emulator/index.js";

export type { ChatCommand, ChatEnd, DemoChatOptions } from "./demo-chat-options.js";

const PROMPT = "you › ";

export class DemoChat {
  readonly #options: DemoChatOptions;
  #user: EmulatedUser;
  #chatId: number;
  /** The newest bot message shown in each chat: what a switch back shows is what came after. */
  readonly #shown = new Map<number, number>();
  readonly #rl: Interface;
  readonly #finished: Promise<ChatEnd>;
  #finish: (end: ChatEnd) => void = () => {};
  #ended = false;
  #queue: Promise<void> = Promise.resolve();
  #waiters = new Set<() => void>();
  readonly #quiet = new QuietWatch();
  readonly #listeners = {
    message: (message: SentMessage) => this.#onBotMessage(message, "new"),
    edit: (message: SentMessage) => this.#onBotMessage(message, "edit"),
    delete: (message: SentMessage) => {
      if (message.chatId === this.#chatId)
        this.#fromBot(renderDeleted(message, this.#options.style));
    },
    callbackAnswer: (answer: CallbackAnswer) => {
      const text = renderCallbackAnswer(answer, this.#options.style);
      if (text !== undefined) this.#fromBot(text);
    },
  };

  constructor(options: DemoChatOptions) {
    this.#options = options;
    this.#user = options.user;
    this.#chatId = options.user.privateChat.id;
    this.#finished = new Promise((resolve) => {
      this.#finish = resolve;
    });
    this.#rl = createInterface({
      input: options.io.input,
      // Without an output on pipes, readline neither echoes nor prompts.
      output: options.interactive ? options.io.output : undefined,
      terminal: options.interactive,
      prompt: PROMPT,
    });
  }

  /** Resolves once the chat has ended, with why. */
  get finished(): Promise<ChatEnd> {
    return this.#finished;
  }

  /** Prints `text` (above the prompt on a terminal) and starts reading lines. */
  start(intro: string): void {
    const { emulator } = this.#options;
    emulator.on("message", this.#listeners.message);
    emulator.on("edit", this.#listeners.edit);
    emulator.on("delete", this.#listeners.delete);
    emulator.on("callbackAnswer", this.#listeners.callbackAnswer);
    this.#write(`${intro}\n`);
    this.#rl.on("line", (line) => {
      this.#queue = this.#queue
        .then(() => this.#handle(line))
        .catch((error: unknown) => {
          this.#note(error instanceof Error ? error.message : String(error));
        });
    });
    this.#rl.on("SIGINT", () => this.end("interrupt"));
    this.#rl.on("close", () => {
      // Lines already read are still handled (and answered) before the demo stops.
      void this.#queue.then(() => this.end("end-of-input"));
    });
    this.#prompt();
  }

  /** Stops reading and listening; idempotent. */
  end(why: ChatEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    const { emulator } = this.#options;
    emulator.off("message", this.#listeners.message);
    emulator.off("edit", this.#listeners.edit);
    emulator.off("delete", this.#listeners.delete);
    emulator.off("callbackAnswer", this.#listeners.callbackAnswer);
    for (const wake of this.#waiters) wake();
    this.#rl.close();
    if (this.#options.interactive) this.#write("\n");
    this.#finish(why);
  }

  /** Prints a line of the demo's own (not from the bot). */
  say(text: string): void {
    this.#show(text);
  }

  #onBotMessage(message: SentMessage, change: "new" | "edit"): void {
    if (message.chatId !== this.#chatId) return;
    this.#shown.set(this.#chatId, Math.max(message.messageId, this.#shown.get(this.#chatId) ?? 0));
    this.#fromBot(renderBotMessage(message, change, this.#options.style));
    const { saveDocument } = this.#options;
    if (change === "new" && message.document && saveDocument) {
      this.#note(`Saved the file as ${saveDocument(message.document)}`);
    }
  }

  /** Shows what the bot did, and lets a line waiting for the bot's answer go on. */
  #fromBot(text: string): void {
    this.#quiet.mark();
    this.#show(text);
    for (const wake of this.#waiters) wake();
  }

  async #handle(raw: string): Promise<void> {
    if (this.#ended) return;
    const line = raw.trim();
    if (!this.#options.interactive) this.#write(`${PROMPT}${raw}\n`);
    if (line === "") return this.#prompt();
    if (line.startsWith(":")) await this.#command(line);
    else {
      const latest = this.#latestWithButtons();
      const choice = /^\d{1,3}$/.test(line) ? Number(line) : 0;
      if (latest && choice >= 1 && choice <= buttonsOf(latest).length) {
        await this.#press(latest, choice);
      } else {
        await this.#afterReply(() => this.#user.sendText(line));
      }
    }
    this.#prompt();
  }

  async #command(line: string): Promise<void> {
    const [name = "", ...args] = line.slice(1).split(/\s+/);
    switch (name.toLowerCase()) {
      case "q":
      case "quit":
      case "exit":
        this.end("quit");
        return;
      case "h":
      case "help":
      case "?": {
        const extra = [
          ...(this.#options.cast ? [ROLE_HELP] : []),
          ...Object.values(this.#options.commands ?? {}).map((command) => command.help),
        ];
        this.#show(demoHelp(this.#options.style, extra));
        return;
      }
      case "role":
        return this.#role(args[0]);
      case "say":
      case "reply":
        return this.#say(line);
      case "press":
        return this.#pressById(args[0], args[1]);
      default: {
        const command = this.#options.commands?.[name.toLowerCase()];
        if (!command) return this.#note(`Unknown command ":${name}". Type :help for the list.`);
        const said = await command.run(args, {
          user: this.#user,
          note: (text) => this.#note(text),
          send: (act) => this.#afterReply(act),
        });
        if (said !== undefined) this.#note(said);
      }
    }
  }

  async #role(wanted: string | undefined): Promise<void> {
    const { cast } = this.#options;
    if (!cast) return this.#note("Roles come from the bot's STAFF and /staff.");
    if (wanted === undefined) return this.#note(cast.whoAmI());
    const role = wanted.toLowerCase();
    if (!isDemoRole(role)) return this.#note(`Roles: ${DEMO_ROLES.join(", ")}.`);
    const { user, note } = cast.become(role);
    this.#user = user;
    this.#chatId = user.privateChat.id;
    this.#note(note);
    // What reached this person while the terminal was someone else's.
    const after = this.#shown.get(this.#chatId) ?? 0;
    for (const message of this.#options.emulator.messages(this.#chatId)) {
      if (message.messageId > after) this.#onBotMessage(message, "new");
    }
  }

  /** `:say TEXT` sends TEXT as it is; `:reply MSG TEXT` sends it as a reply to bot #MSG. */
  async #say(line: string): Promise<void> {
    const said = /^:say\s+(.+)$/i.exec(line)?.[1];
    const [, msg = "", text = ""] = /^:reply\s+(\d+)\s+(.+)$/i.exec(line) ?? [];
    const replyTo = this.#options.emulator.message(this.#chatId, Number(msg));
    if (said !== undefined) return this.#afterReply(() => this.#user.sendText(said));
    if (replyTo && text) return this.#afterReply(() => this.#user.sendText(text, { replyTo }));
    this.#note("Usage: :say TEXT (e.g. :say 1), or :reply MSG TEXT (e.g. :reply 4 wrong number)");
  }

  async #pressById(messageArg: string | undefined, buttonArg: string | undefined): Promise<void> {
    const message = this.#options.emulator.message(this.#chatId, Number(messageArg));
    const choice = Number(buttonArg);
    if (!message || message.deleted || !Number.isInteger(choice)) {
      this.#note("Usage: :press MSG N, e.g. :press 4 1 for button [1] of bot #4.");
      return;
    }
    await this.#press(message, choice);
  }

  async #press(message: SentMessage, choice: number): Promise<void> {
    const button = buttonsOf(message)[choice - 1];
    if (!button) {
      this.#note(`bot #${message.messageId} has no button [${choice}].`);
      return;
    }
    const others = this.#withButtons().length > 1;
    const where = others ? ` on bot #${message.messageId} (:press MSG N for another message)` : "";
    this.#show(`(pressed ${button.text}${where})`);
    if (button.callback_data === undefined) {
      return this.#note((this.#options.opens ?? whereItLeads)(button, this.#user));
    }
    await this.#afterReply(() => this.#user.pressButton(message, choice - 1));
  }

  #withButtons(): SentMessage[] {
    const messages = this.#options.emulator.messages(this.#chatId);
    return messages.filter((message) => buttonsOf(message).length > 0);
  }

  #latestWithButtons(): SentMessage | undefined {
    return this.#withButtons().at(-1);
  }

  /**
   * Runs `act`, then waits until the bot shows something (at most `replyWaitMs`) and, on
   * pipes, goes quiet: piped input is read at the pace of the bot's answers, in order.
   */
  async #afterReply(act: () => Promise<unknown>): Promise<void> {
    let wake = () => {};
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    this.#waiters.add(wake);
    const timer = setTimeout(wake, this.#options.replyWaitMs ?? 5000);
    const deadline = Date.now() + (this.#options.replyWaitMs ?? 5000);
    try {
      await act();
      await woken;
      if (!this.#options.interactive) {
        const busy = this.#options.busy;
        if (busy) await this.#quiet.waitWhile(busy, deadline, () => this.#ended);
        await this.#quiet.wait(deadline, () => this.#ended);
      }
    } finally {
      clearTimeout(timer);
      this.#waiters.delete(wake);
    }
  }

  /** Prints a block of output, keeping the prompt and what is being typed below it. */
  #show(text: string): void {
    if (this.#options.interactive && !this.#ended) {
      clearLine(this.#options.io.output, 0);
      cursorTo(this.#options.io.output, 0);
      this.#write(`${text}\n`);
      this.#rl.prompt(true);
    } else {
      this.#write(`${text}\n`);
    }
  }

  /** A line of the chat's own, marked as such: `(demo) …`. */
  #note(text: string): void {
    this.#show(`(${this.#options.label ?? "demo"}) ${text}`);
  }

  #prompt(): void {
    if (this.#options.interactive && !this.#ended) this.#rl.prompt();
  }

  #write(text: string): void {
    const { output } = this.#options.io;
    // A closed output (a pipe whose reader left) must not crash the demo.
    if ("writable" in output && output.writable === false) return;
    output.write(text);
  }
}
