/**
 * A business's events receiver on 127.0.0.1 for end-to-end tests: it checks every request's
 * Standard Webhooks signature with the `standardwebhooks` package (the spec's own library,
 * not our signing code), answers each request with the next scripted status (then 200, or
 * `never`: no answer at all), and records what came.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";
import { z } from "zod";

/** A fresh `whsec_` secret (32 random bytes). */
export function newEventsSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;
}

export const ReceivedBodySchema = z.object({
  type: z.string(),
  timestamp: z.string(),
  // A payout or batch has an id; an operator's availability has none.
  data: z.looseObject({ id: z.string().optional() }),
});
export type ReceivedBody = z.infer<typeof ReceivedBodySchema>;

export interface ReceivedEvent {
  id: string;
  /** The signature checked out with the standardwebhooks library. */
  verified: boolean;
  body: ReceivedBody;
  /** What the receiver answered (0: it did not). */
  status: number;
  atMs: number;
}

export class EventReceiver {
  readonly secret: string;
  readonly received: ReceivedEvent[] = [];
  /** Statuses to answer, in order; once used up, `fallback`. */
  readonly script: Array<number | "never"> = [];
  fallback: number | "never" = 200;
  url = "";
  readonly #server = createServer((req, res) => void this.#handle(req, res));
  readonly #webhook: Webhook;
  readonly #held: ServerResponse[] = [];

  constructor(secret = newEventsSecret()) {
    this.secret = secret;
    this.#webhook = new Webhook(secret);
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    const address = this.#server.address();
    if (typeof address !== "object" || address === null) throw new Error("no receiver address");
    this.url = `http://127.0.0.1:${address.port}/events`;
    return this;
  }

  /** Events it answered with a 2xx. */
  get accepted(): ReceivedEvent[] {
    return this.received.filter((event) => event.status >= 200 && event.status < 300);
  }

  /** The env that points a bot here. */
  get env(): Record<string, string> {
    return { EVENTS_URL: this.url, EVENTS_SECRET: this.secret };
  }

  close(): Promise<void> {
    for (const res of this.#held) res.destroy();
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(Buffer.from(chunk));
    const payload = Buffer.concat(chunks).toString("utf8");
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string") headers[name] = value;
    }
    let verified = false;
    try {
      this.#webhook.verify(payload, headers);
      verified = true;
    } catch {
      verified = false;
    }
    const answer = this.script.shift() ?? this.fallback;
    const event: ReceivedEvent = {
      id: headers["webhook-id"] ?? "",
      verified,
      body: ReceivedBodySchema.parse(JSON.parse(payload)),
      status: answer === "never" ? 0 : answer,
      atMs: Date.now(),
    };
    this.received.push(event);
    if (answer === "never") {
      this.#held.push(res);
      return;
    }
    res.writeHead(answer, { "content-type": "text/plain" });
    res.end(answer === 410 ? "gone: this endpoint was removed" : `answer ${answer}`);
  }
}
