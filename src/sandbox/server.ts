/**
 * `startSandbox`: the whole Payment API of shared/payment-api-spec.md on a local
 * node:http server, in memory, with scripted outcomes, injectable faults, signed answers
 * and webhook callbacks. Used by tests, benchmarks and the terminal demo.
 */
import type { KeyObject } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type CallbackAttempt, CallbackSender } from "./callbacks.js";
import { createControls, type SandboxControls, type SandboxParts } from "./controls.js";
import { handleExchange } from "./exchange.js";
import { FaultQueue } from "./faults.js";
import { sandboxKeys } from "./keys.js";
import { resolveSandboxOptions, type SandboxOptions } from "./options.js";
import { SlidingWindowLimiter } from "./rate-limit.js";
import { type RecordedRequest, type RequestFilter, RequestLog } from "./requests.js";
import { publicKeyOf } from "./signing.js";
import type { PaymentStatus } from "./spec.js";
import { type SandboxPayment, SandboxState } from "./state.js";

/** The handle passes these controls through unchanged (see controls.ts for what each does). */
type PassedControls =
  | "setAvailability"
  | "setCollectionsEnabled"
  | "setDisbursementsEnabled"
  | "injectFault"
  | "setCallbackUrl"
  | "setSettleDelayMs"
  | "setBalance"
  | "setRegisteredName"
  | "snapshot"
  | "reset";

export interface SandboxHandle extends Pick<SandboxControls, PassedControls> {
  /** Base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  url: string;
  /** The first accepted API key. */
  apiKey: string;
  /** Verifies the sandbox's `X-Sig` on responses and callbacks. */
  publicKeyPem: string;
  /** Every API request received, in order (admin requests are not recorded). */
  readonly requests: readonly RecordedRequest[];
  /** Every callback attempt made since start or the last reset, in order. */
  readonly callbackAttempts: readonly CallbackAttempt[];
  countRequests(filter?: RequestFilter): number;
  getPayment(id: string): SandboxPayment | undefined;
  /** How many payments are still to settle on their own timer (the demo waits for them on pipes). */
  settlingCount(): number;
  /** When a payment last reached a final status (epoch ms; 0: never). */
  lastFinalAtMs(): number;
  /**
   * Sets the status (no money moves), and the description when given, and fires the callback
   * for a final one. Throws on an unknown id.
   */
  forceStatus(id: string, status: PaymentStatus, description?: string): void;
  /** Stops timers, callback retries and the server (open connections are dropped). Idempotent. */
  close(): Promise<void>;
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address();
      if (address !== null && typeof address === "object") resolve(address);
      else reject(new Error("the sandbox server has no address"));
    });
  });
}

/** A URL a client on this machine can use, also when listening on every interface. */
function baseUrlOf(address: AddressInfo): string {
  const host =
    address.address === "0.0.0.0"
      ? "127.0.0.1"
      : address.address === "::"
        ? "::1"
        : address.address;
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
}

/** Waits that can all be cancelled at once (their promises then never settle). */
function cancellableSleep(): { sleep: (ms: number) => Promise<void>; cancelAll: () => void } {
  const timers = new Set<NodeJS.Timeout>();
  return {
    sleep: (ms) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, ms);
        timers.add(timer);
      }),
    cancelAll: () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

function buildParts(options: SandboxOptions): SandboxParts & { privateKey: KeyObject } {
  const resolved = resolveSandboxOptions(options);
  const keys = sandboxKeys(resolved.privateKeyPem);
  const callbacks = new CallbackSender({
    privateKey: keys.privateKey,
    retryDelaysMs: resolved.callbackRetryDelaysMs,
    timeoutMs: resolved.callbackTimeoutMs,
    clockSkewMs: resolved.clockSkewMs,
    logger: resolved.logger,
  });
  const state: SandboxState = new SandboxState({
    initialBalance: resolved.initialBalance,
    settleDelayMs: resolved.settleDelayMs,
    callbackUrl: resolved.callbackUrl,
    onFinal: (payment) => {
      const url = state.callbackUrl;
      if (url !== undefined) callbacks.send(url, payment);
    },
  });
  return {
    options: resolved,
    state,
    faults: new FaultQueue(),
    requests: new RequestLog(resolved.maxRecordedRequests),
    limiter: new SlidingWindowLimiter(resolved.rateLimitPerMinute),
    callbacks,
    publicKeyPem: keys.publicKeyPem,
    privateKey: keys.privateKey,
  };
}

/**
 * Starts a sandbox on `options.host:options.port` (default 127.0.0.1, a free port) and
 * resolves once it listens. Defaults are in `SandboxOptions`.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const parts = buildParts(options);
  const { state, requests, callbacks, options: resolved } = parts;
  const controls = createControls(parts);
  const waits = cancellableSleep();
  const context = {
    parts,
    controls,
    privateKey: parts.privateKey,
    requestVerifyKey:
      resolved.requestVerifyKeyPem === undefined
        ? undefined
        : publicKeyOf(resolved.requestVerifyKeyPem),
    apiKeys: new Set(resolved.apiKeys),
    accountOf: resolved.accountOf,
    sleep: waits.sleep,
  };
  const server = createServer((req, res) => {
    void handleExchange(context, req, res);
  });
  const address = await listen(server, resolved.host, resolved.port);
  const url = baseUrlOf(address);
  resolved.logger.info({ url }, "sandbox listening");

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    state.stopTimers();
    waits.cancelAll();
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    // Hung requests and idle keep-alive sockets would otherwise hold close() forever.
    server.closeAllConnections();
    await Promise.all([stopped, callbacks.close()]);
  };

  return {
    url,
    apiKey: resolved.apiKeys[0] ?? "",
    publicKeyPem: parts.publicKeyPem,
    get requests() {
      return requests.entries;
    },
    get callbackAttempts() {
      return callbacks.attempts;
    },
    countRequests: (filter) => requests.count(filter),
    getPayment: (id) => controls.getPayment(id),
    settlingCount: () => state.settlingCount,
    lastFinalAtMs: () => state.lastFinalAtMs,
    forceStatus: (id, status, description) => {
      if (!controls.forceStatus(id, status, description)) {
        throw new RangeError(`no sandbox payment ${id}`);
      }
    },
    setAvailability: controls.setAvailability,
    setCollectionsEnabled: controls.setCollectionsEnabled,
    setDisbursementsEnabled: controls.setDisbursementsEnabled,
    injectFault: controls.injectFault,
    setCallbackUrl: controls.setCallbackUrl,
    setSettleDelayMs: controls.setSettleDelayMs,
    setBalance: controls.setBalance,
    setRegisteredName: controls.setRegisteredName,
    snapshot: controls.snapshot,
    reset: controls.reset,
    close: () => {
      closing ??= close();
      return closing;
    },
  };
}
