/**
 * Webhook delivery of final statuses. The spec leaves webhooks unspecified; what we model:
 * - the body is the Payment JSON, POSTed with `Content-Type: application/json`;
 * - it is signed like a response (`X-Sig`, `X-Sig-Timestamp`) over POST, the callback
 *   URL's path and query, and the exact body; each attempt is signed afresh, so a retry
 *   15 minutes later still passes the receiver's clock-skew check;
 * - any 2xx ends the delivery; a non-2xx, a network error or a timeout is retried after
 *   each of `retryDelaysMs` in turn, then given up;
 * - retries go to the URL set when the payment became final, with the body of that moment.
 */
import type { KeyObject } from "node:crypto";
import { request } from "undici";
import { type Logger, maskPhone } from "../logger.js";
import { signatureHeaders } from "./signing.js";
import type { PaymentStatus } from "./spec.js";
import type { SandboxPayment } from "./state.js";

export interface CallbackAttempt {
  paymentId: string;
  status: PaymentStatus;
  url: string;
  /** 1 for the first try. */
  attempt: number;
  atMs: number;
  /** The receiver's status code, or why there was none. */
  outcome: number | "network-error" | "timeout";
}

export interface CallbackSenderInit {
  privateKey: KeyObject;
  retryDelaysMs: readonly number[];
  timeoutMs: number;
  /** Added to the signed timestamps: a service whose clock is off. */
  clockSkewMs: number;
  logger: Logger;
}

interface Delivery {
  url: string;
  payment: SandboxPayment;
  body: string;
}

export class CallbackSender {
  readonly #init: CallbackSenderInit;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #attempts: CallbackAttempt[] = [];
  #abort = new AbortController();
  #inFlight = new Set<Promise<void>>();

  constructor(init: CallbackSenderInit) {
    this.#init = init;
  }

  get attempts(): readonly CallbackAttempt[] {
    return this.#attempts;
  }

  /** Starts delivering `payment` to `url` in the background. */
  send(url: string, payment: SandboxPayment): void {
    this.#attempt({ url, payment, body: JSON.stringify(payment) }, 1);
  }

  /** Cancels waiting retries and aborts attempts under way; later `send`s work again. */
  cancelAll(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#abort.abort();
    this.#abort = new AbortController();
  }

  /** Like `cancelAll`, and waits until the aborted attempts have returned. */
  async close(): Promise<void> {
    this.cancelAll();
    await Promise.allSettled([...this.#inFlight]);
  }

  clearAttempts(): void {
    this.#attempts.length = 0;
  }

  #attempt(delivery: Delivery, attempt: number): void {
    const signal = this.#abort.signal;
    const run = this.#post(delivery, attempt, signal).then((delivered) => {
      if (delivered || signal.aborted) return;
      const delayMs = this.#init.retryDelaysMs[attempt - 1];
      if (delayMs === undefined) {
        this.#init.logger.warn(
          { paymentId: delivery.payment.id, attempts: attempt },
          "sandbox callback given up",
        );
        return;
      }
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        this.#attempt(delivery, attempt + 1);
      }, delayMs);
      this.#timers.add(timer);
    });
    this.#inFlight.add(run);
    void run.finally(() => this.#inFlight.delete(run));
  }

  /** One POST; true when the receiver answered 2xx. Never throws. */
  async #post(delivery: Delivery, attempt: number, cancel: AbortSignal): Promise<boolean> {
    const { url, payment, body } = delivery;
    const headers = {
      "content-type": "application/json",
      ...signatureHeaders(this.#init.privateKey, {
        method: "POST",
        pathAndQuery: `${new URL(url).pathname}${new URL(url).search}`,
        body,
        timestampMs: Date.now() + this.#init.clockSkewMs,
      }),
    };
    const timeout = AbortSignal.timeout(this.#init.timeoutMs);
    let outcome: CallbackAttempt["outcome"];
    try {
      const response = await request(url, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.any([cancel, timeout]),
      });
      await response.body.dump();
      outcome = response.statusCode;
    } catch {
      outcome = timeout.aborted ? "timeout" : "network-error";
    }
    if (cancel.aborted) return false;
    this.#attempts.push({
      paymentId: payment.id,
      status: payment.status,
      url,
      attempt,
      atMs: Date.now(),
      outcome,
    });
    this.#init.logger.info(
      {
        paymentId: payment.id,
        status: payment.status,
        phone: maskPhone(payment.phoneNumber),
        attempt,
        outcome,
      },
      "sandbox callback attempt",
    );
    return typeof outcome === "number" && outcome >= 200 && outcome < 300;
  }
}
