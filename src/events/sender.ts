/**
 * Sends one try of one event: a POST of its body to EVENTS_URL with the Standard Webhooks
 * headers, on an undici Agent of its own (the Payment API's pool is never shared with a
 * slow receiver). A 2xx within the deadline is delivered; 410 Gone means the receiver wants
 * no more events; anything else (another status, a timeout, a refused connection) is a
 * failed try, retried later by the dispatcher.
 */
import { Agent, request } from "undici";
import { signedHeaders } from "./signature.js";

/** How one try went; `answer` is what the receiver said (status and the start of its body). */
export type SendResult =
  | { outcome: "delivered"; statusCode: number }
  | { outcome: "gone"; statusCode: 410; answer: string }
  | { outcome: "failed"; statusCode: number | null; answer: string };

export interface EventSenderOptions {
  url: string;
  /** The secret's key bytes. */
  key: Buffer;
  /** A try not answered with a 2xx within this is failed. Default 10 s (the rule). */
  timeoutMs?: number;
  /** Connections to the receiver at most. Default 64 (one per try of a round). */
  connections?: number;
}

/** The start of an answer's body, one clean line (it is shown to admins in /events). */
const ANSWER_CHARS = 200;

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, ANSWER_CHARS);
}

export class EventSender {
  readonly #url: string;
  readonly #key: Buffer;
  readonly #timeoutMs: number;
  readonly #agent: Agent;

  constructor(options: EventSenderOptions) {
    this.#url = options.url;
    this.#key = options.key;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#agent = new Agent({
      connections: options.connections ?? 64,
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
    });
  }

  /** Where events go (never the secret). */
  get url(): string {
    return this.#url;
  }

  /** One try: signed now, sent now. Never throws. */
  async send(eventId: string, body: string, nowMs: number): Promise<SendResult> {
    const headers = {
      "content-type": "application/json",
      ...signedHeaders(this.#key, eventId, Math.floor(nowMs / 1000), body),
    };
    const deadline = AbortSignal.timeout(this.#timeoutMs);
    try {
      const response = await request(this.#url, {
        method: "POST",
        headers,
        body,
        dispatcher: this.#agent,
        signal: deadline,
      });
      const text = await response.body.text().catch(() => "");
      const { statusCode } = response;
      if (statusCode >= 200 && statusCode < 300) return { outcome: "delivered", statusCode };
      const answer = oneLine(`${statusCode} ${text}`);
      if (statusCode === 410) return { outcome: "gone", statusCode, answer };
      return { outcome: "failed", statusCode, answer };
    } catch (error) {
      const reason = deadline.aborted
        ? `no answer within ${this.#timeoutMs} ms`
        : error instanceof Error
          ? error.message
          : String(error);
      return { outcome: "failed", statusCode: null, answer: oneLine(reason) };
    }
  }

  /** Ends every try in flight at once (each counts as failed, tried again later). */
  async close(): Promise<void> {
    await this.#agent.destroy();
  }
}
