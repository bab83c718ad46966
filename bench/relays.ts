/**
 * The harness's side of relay-process.ts: TCP relays in their own process between a bot
 * and what it talks to (Redis, the Telegram emulator), to add a network's latency each way
 * and to count the round trips and bytes that go through.
 */
import type { ChildProcess } from "node:child_process";
import { forkBench, nextMessage, stopChild } from "./child.js";
import {
  type Counters,
  DelaysSetSchema,
  RelayCountersSchema,
  RelayProcessReadySchema,
  RelayStartedSchema,
} from "./messages.js";

const ANSWER_MS = 10_000;

export class Relays {
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess) {
    this.#child = child;
  }

  static async start(): Promise<Relays> {
    const child = forkBench("relay-process.ts", { compiled: true });
    await nextMessage(child, RelayProcessReadySchema, 30_000, "relay process start");
    return new Relays(child);
  }

  /** A relay named `name` to the host and port of `url`; resolves with `url` through it. */
  async add(name: string, url: string): Promise<string> {
    const target = new URL(url);
    const defaultPort = target.protocol.startsWith("redis") ? 6379 : 80;
    const answer = nextMessage(this.#child, RelayStartedSchema, ANSWER_MS, `relay ${name}`);
    this.#child.send({
      type: "relay",
      name,
      targetHost: target.hostname.replace(/^\[(.*)\]$/, "$1"),
      targetPort: Number(target.port || defaultPort),
    });
    const { port } = await answer;
    target.hostname = "127.0.0.1";
    target.port = String(port);
    // URL keeps a trailing slash on an http root without a path: the bot adds its own.
    return target.toString().replace(/\/$/, "");
  }

  /** Every chunk through the relays `names` from now on is held this long each way. */
  async setDelays(names: readonly string[], upstreamMs: number, downstreamMs: number) {
    const answer = nextMessage(this.#child, DelaysSetSchema, ANSWER_MS, "relay delays");
    this.#child.send({ type: "delays", names, upstreamMs, downstreamMs });
    await answer;
  }

  async counters(): Promise<Record<string, Counters>> {
    const answer = nextMessage(this.#child, RelayCountersSchema, ANSWER_MS, "relay counters");
    this.#child.send({ type: "counters" });
    return (await answer).relays;
  }

  close(): Promise<void> {
    return stopChild(this.#child);
  }
}
