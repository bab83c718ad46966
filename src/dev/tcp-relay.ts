/**
 * A small TCP relay for tests and benchmarks: it listens on a loopback port and forwards
 * every connection to a target, optionally late in each direction (a real network's
 * latency), and can cut every open connection and refuse new ones for a while (a network
 * blip). Between a bot and Redis, or a Redis replica and its primary, it shows what
 * loopback hides; its counters tell how many round trips and bytes went through.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface TcpRelayOptions {
  targetPort: number;
  /** Default 127.0.0.1. */
  targetHost?: string;
  /** Added to every chunk going from the client to the target. Default 0. */
  upstreamDelayMs?: number;
  /** Added to every chunk going from the target back to the client. Default 0. */
  downstreamDelayMs?: number;
}

/**
 * What went through a relay since it started, all connections together. A round trip is
 * a burst of bytes a client sent after bytes had come back since its previous burst (or
 * its first): what a client that waits for each answer before asking again pays a network
 * latency for. Bursts sent without waiting (pipelining) count once.
 */
export interface RelayCounters {
  connections: number;
  roundTrips: number;
  /** Client → target. */
  bytesUp: number;
  /** Target → client. */
  bytesDown: number;
}

/** One direction of one connection: chunks written `delayMs` late, in order. */
function pipeDelayed(
  from: Socket,
  to: Socket,
  delayMs: () => number,
  onChunk: (chunk: Buffer) => void,
): void {
  from.on("data", (chunk: Buffer) => {
    onChunk(chunk);
    const delay = delayMs();
    if (delay <= 0) {
      if (!to.destroyed) to.write(chunk);
      return;
    }
    // Timers of one duration fire in the order they were set: chunks keep their order.
    setTimeout(() => {
      if (!to.destroyed) to.write(chunk);
    }, delay);
  });
  from.on("end", () => {
    const delay = delayMs();
    setTimeout(() => to.end(), Math.max(0, delay));
  });
}

export class TcpRelay {
  readonly #server: Server;
  readonly #options: Required<TcpRelayOptions>;
  readonly #pairs = new Set<[Socket, Socket]>();
  readonly #counters: RelayCounters = { connections: 0, roundTrips: 0, bytesUp: 0, bytesDown: 0 };
  #refuseUntilMs = 0;
  #port = 0;

  private constructor(options: TcpRelayOptions) {
    this.#options = {
      targetHost: "127.0.0.1",
      upstreamDelayMs: 0,
      downstreamDelayMs: 0,
      ...options,
    };
    this.#server = createServer((client) => this.#accept(client));
  }

  /** Starts a relay on 127.0.0.1 at a free port; resolves once it listens. */
  static async start(options: TcpRelayOptions): Promise<TcpRelay> {
    const relay = new TcpRelay(options);
    await new Promise<void>((resolve, reject) => {
      relay.#server.once("error", reject);
      relay.#server.listen(0, "127.0.0.1", () => resolve());
    });
    const address = relay.#server.address();
    if (address === null || typeof address !== "object") throw new Error("relay has no address");
    relay.#port = address.port;
    return relay;
  }

  get port(): number {
    return this.#port;
  }

  /** Open connections (client side) right now. */
  get connections(): number {
    return this.#pairs.size;
  }

  /** A copy of the counts so far (see RelayCounters). */
  get counters(): RelayCounters {
    return { ...this.#counters };
  }

  /** Sets the delays of every chunk from now on, each way. */
  setDelays(upstreamDelayMs: number, downstreamDelayMs: number): void {
    this.#options.upstreamDelayMs = upstreamDelayMs;
    this.#options.downstreamDelayMs = downstreamDelayMs;
  }

  /** Destroys every open connection at once, both sides (like a broken link). */
  cut(): void {
    for (const [client, upstream] of this.#pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.#pairs.clear();
  }

  /** Cuts every connection and closes new ones at once for `ms`: a short outage. */
  blip(ms: number): void {
    this.#refuseUntilMs = Date.now() + ms;
    this.cut();
  }

  /** Cuts every connection and stops listening. */
  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: Socket): void {
    if (Date.now() < this.#refuseUntilMs) {
      client.destroy();
      return;
    }
    client.setNoDelay(true);
    const upstream = connect({ host: this.#options.targetHost, port: this.#options.targetPort });
    upstream.setNoDelay(true);
    const pair: [Socket, Socket] = [client, upstream];
    this.#pairs.add(pair);
    // One side went away: the other follows once the chunks still on their way arrived.
    const drop = () => {
      this.#pairs.delete(pair);
      const lingerMs = Math.max(this.#options.upstreamDelayMs, this.#options.downstreamDelayMs);
      setTimeout(() => {
        client.destroy();
        upstream.destroy();
      }, lingerMs);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    const counters = this.#counters;
    counters.connections += 1;
    let answered = true;
    pipeDelayed(
      client,
      upstream,
      () => this.#options.upstreamDelayMs,
      (chunk) => {
        if (answered) counters.roundTrips += 1;
        answered = false;
        counters.bytesUp += chunk.length;
      },
    );
    pipeDelayed(
      upstream,
      client,
      () => this.#options.downstreamDelayMs,
      (chunk) => {
        answered = true;
        counters.bytesDown += chunk.length;
      },
    );
  }
}
