/**
 * The load balancer a deployment puts in front of its bot replicas in Telegram webhook mode,
 * reduced to what the scale benchmark needs: one loopback address the Bot API emulator
 * delivers to, each request forwarded whole (method, path, headers, body) to the next replica
 * in turn, and the replica's answer returned. Until a replica is added it answers 503, which
 * the emulator retries.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Agent, request } from "undici";

const FORWARD_TIMEOUT_MS = 10_000;

async function bodyOf(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

export class WebhookBalancer {
  readonly url: string;
  readonly #server: Server;
  readonly #agent = new Agent({ keepAliveTimeout: 30_000 });
  readonly #backends: string[] = [];
  #next = 0;

  private constructor(server: Server, url: string) {
    this.#server = server;
    this.url = url;
  }

  static async start(): Promise<WebhookBalancer> {
    let balancer: WebhookBalancer | undefined;
    const server = createServer((incoming, response) => {
      void balancer?.forward(incoming, response);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    balancer = new WebhookBalancer(server, `http://127.0.0.1:${port}`);
    return balancer;
  }

  /** A replica's HTTP root (`http://127.0.0.1:<port>`), served in turn from now on. */
  add(backendUrl: string): void {
    this.#backends.push(backendUrl);
  }

  async forward(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const backend = this.#backends[this.#next++ % Math.max(1, this.#backends.length)];
    try {
      const body = await bodyOf(incoming);
      if (backend === undefined) {
        response.writeHead(503).end();
        return;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (typeof value === "string" && name !== "host" && name !== "connection")
          headers[name] = value;
      }
      const answer = await request(`${backend}${incoming.url ?? "/"}`, {
        method: incoming.method === "GET" ? "GET" : "POST",
        headers,
        body: incoming.method === "GET" ? undefined : body,
        dispatcher: this.#agent,
        headersTimeout: FORWARD_TIMEOUT_MS,
        bodyTimeout: FORWARD_TIMEOUT_MS,
      });
      const text = await answer.body.text();
      response.writeHead(answer.statusCode, { "content-type": "application/json" }).end(text);
    } catch {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    }
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
    await this.#agent.close();
  }
}
