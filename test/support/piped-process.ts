/**
 * A `src/main.ts` command run as a person runs it in a terminal, with piped stdio: typed
 * into line by line, its output read in order (plain text, since stdout is not a terminal).
 * Used for the commands with a terminal chat (`demo`, `emulator`) and the sandbox's banner.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const WAIT_MS = 20_000;

export class PipedProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output = "";
  stderr = "";
  #cursor = 0;

  /** Runs `src/main.ts ...args` with only `env` (and PATH, HOME) in its environment. */
  constructor(args: string[], env: Record<string, string>) {
    this.child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      this.output += chunk;
    });
    this.child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => resolve({ code, signal }));
    });
  }

  type(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** The first match of `pattern` in output not yet consumed by an earlier wait. */
  async waitFor(pattern: RegExp): Promise<RegExpExecArray> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const match = pattern.exec(this.output.slice(this.#cursor));
      if (match) {
        this.#cursor += match.index + match[0].length;
        return match;
      }
      if (Date.now() > deadline || this.child.exitCode !== null) {
        throw new Error(
          `output did not show ${pattern}\n--- stdout ---\n${this.output}\n--- stderr ---\n${this.stderr}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
