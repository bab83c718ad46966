/**
 * SIGINT/SIGTERM for the terminal tools (the demo, the emulator), watched from the start:
 * a signal during start-up stops the tool once its parts are up (so they are stopped
 * cleanly); later, it ends the chat. A second signal exits at once.
 */
export class Signals {
  received = false;
  #onSignal: () => void = () => {};
  readonly #output: NodeJS.WritableStream;
  readonly #handler = () => {
    if (this.received) {
      this.#output.write("Stopping anyway.\n");
      process.exit(1);
    }
    this.received = true;
    this.#onSignal();
  };

  constructor(output: NodeJS.WritableStream) {
    this.#output = output;
    process.on("SIGINT", this.#handler);
    process.on("SIGTERM", this.#handler);
  }

  onSignal(action: () => void): void {
    this.#onSignal = action;
  }

  unhook(): void {
    process.off("SIGINT", this.#handler);
    process.off("SIGTERM", this.#handler);
  }
}
