import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/logger.js";
import { PaymentClient } from "../../../src/payments/client.js";
import type { PaymentClientOptions } from "../../../src/payments/client-options.js";
import {
  InvalidResponseError,
  OutcomeUnknownError,
  PaymentApiError,
  PaymentNetworkError,
  PaymentTimeoutError,
  RateLimitedError,
  SignatureError,
} from "../../../src/payments/errors.js";
import { LocalRateLimiter } from "../../../src/payments/local-rate-limiter.js";
import type { Acquisition, RateLimiter } from "../../../src/payments/rate-limiter.js";
import {
  loadPrivateKey,
  loadPublicKey,
  type SignatureProblem,
  signParts,
  verifyParts,
} from "../../../src/payments/signature.js";
import { capturedLogger } from "../../support/logs.js";

const API_KEY = "test-api-key-0123456789";

const PAYMENT = {
  id: "pay_123",
  status: "pending",
  amount: 5000,
  fee: 50,
  currency: "XAF",
  paymentType: "disbursement",
  phoneNumber: "237670000001",
  telecomOperator: "mtn",
  createdAt: "2024-05-01T12:00:00Z",
  updatedAt: "2024-05-01T12:00:00Z",
};

const REQUEST = { amount: 5000, phoneNumber: "237670000001" };

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  remotePort: number | undefined;
  atMs: number;
}

/** Answers the request; `index` counts from 0 over the server's life. */
type Handler = (request: Received, response: ServerResponse, index: number) => void;

interface TestServer {
  url: string;
  received: Received[];
}

const servers: Server[] = [];
const clients: PaymentClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A real HTTP server on 127.0.0.1 that records every request it fully reads. */
async function startServer(handler: Handler): Promise<TestServer> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      const entry: Received = {
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body,
        remotePort: request.socket.remotePort,
        atMs: Date.now(),
      };
      received.push(entry);
      handler(entry, response, received.length - 1);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received };
}

function json(response: ServerResponse, statusCode: number, body: unknown, headers = {}): void {
  response.writeHead(statusCode, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

function httpError(statusCode: number, message: string, details: unknown[] = []) {
  return { statusCode, message, details };
}

function makeClient(url: string, options: Partial<PaymentClientOptions> = {}): PaymentClient {
  const client = new PaymentClient({
    baseUrl: url,
    apiKey: API_KEY,
    connectTimeoutMs: 200,
    requestTimeoutMs: 300,
    retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, maxTotalMs: 3_000 },
    ...options,
  });
  clients.push(client);
  return client;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

/** The OutcomeUnknownError's cause, after checking it is one. */
async function unknownCause(promise: Promise<unknown>): Promise<unknown> {
  const error = await failure(promise);
  expect(error).toBeInstanceOf(OutcomeUnknownError);
  return error instanceof Error ? error.cause : undefined;
}

function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

describe("PaymentClient retries of GET requests", () => {
  it("retries a GET answered 503 and returns the payment of the next answer", async () => {
    const server = await startServer((_request, response, index) =>
      index === 0 ? json(response, 503, httpError(503, "busy")) : json(response, 200, PAYMENT),
    );
    const payment = await makeClient(server.url).getPayment("pay_123");
    expect(payment).toMatchObject({ id: "pay_123", status: "pending", amount: 5000 });
    expect(server.received).toHaveLength(2);
  });

  it("waits as long as Retry-After says before retrying a GET answered 429", async () => {
    const server = await startServer((_request, response, index) =>
      index === 0
        ? json(response, 429, httpError(429, "slow down"), { "retry-after": "1" })
        : json(response, 200, [
            { operator: "mtn", operation: { type: "collection", status: "OPERATIONAL" } },
          ]),
    );
    const entries = await makeClient(server.url).getAvailability();
    expect(entries).toEqual([
      { operator: "mtn", operation: { type: "collection", status: "OPERATIONAL" } },
    ]);
    expect(server.received).toHaveLength(2);
    const [first, second] = server.received;
    // The backoff alone is under 20 ms; only Retry-After explains a wait of about a second.
    expect((second?.atMs ?? 0) - (first?.atMs ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it("gives up at once when Retry-After is longer than what is left of the time budget", async () => {
    const server = await startServer((_request, response) =>
      json(response, 429, httpError(429, "slow down"), { "retry-after": "60" }),
    );
    const error = await failure(makeClient(server.url).getPayment("pay_123"));
    expect(error).toBeInstanceOf(PaymentApiError);
    expect(error).toMatchObject({ statusCode: 429, retryAfterMs: 60_000 });
    expect(server.received).toHaveLength(1);
  });

  it("gives up after maxAttempts and throws the last answer", async () => {
    const server = await startServer((_request, response, index) =>
      json(response, 503, httpError(503, `busy ${index}`)),
    );
    const error = await failure(makeClient(server.url).getPayment("pay_123"));
    expect(error).toBeInstanceOf(PaymentApiError);
    expect(error).toMatchObject({ statusCode: 503, apiMessage: "busy 2", operation: "getPayment" });
    expect(server.received).toHaveLength(3);
  });

  it("retries a GET that times out, then throws PaymentTimeoutError", async () => {
    const server = await startServer(() => {});
    const error = await failure(makeClient(server.url).getUserInfo("237670000001"));
    expect(error).toBeInstanceOf(PaymentTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 300 });
    expect(server.received).toHaveLength(3);
  });

  it("retries a GET whose connection is cut, then throws PaymentNetworkError", async () => {
    const server = await startServer((_request, response) => response.socket?.destroy());
    const error = await failure(makeClient(server.url).getPayment("pay_123"));
    expect(error).toBeInstanceOf(PaymentNetworkError);
    expect(error).toMatchObject({ requestSent: true });
    expect(server.received).toHaveLength(3);
  });
});

/** Sends the headers and the first byte of a payment, then `more` (if any) every 50 ms, never the end. */
function stallAfterHeaders(response: ServerResponse, more?: string): void {
  response.writeHead(200, { "content-type": "application/json" });
  response.write("{");
  if (more === undefined) return;
  const timer = setInterval(() => response.write(more), 50);
  response.on("close", () => clearInterval(timer));
}

describe("PaymentClient deadline of one attempt", () => {
  it("retries a GET whose answer stops after its headers, then throws PaymentTimeoutError", async () => {
    const server = await startServer((_request, response) => stallAfterHeaders(response));
    const error = await failure(makeClient(server.url).getPayment("pay_123"));
    expect(error).toBeInstanceOf(PaymentTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 300, operation: "getPayment" });
    expect(server.received).toHaveLength(3);
  });

  it("does not retry a disbursement whose answer stops after its headers", async () => {
    const server = await startServer((_request, response) => stallAfterHeaders(response));
    const cause = await unknownCause(makeClient(server.url).disburse(REQUEST));
    expect(cause).toBeInstanceOf(PaymentTimeoutError);
    expect(cause).toMatchObject({ timeoutMs: 300, operation: "disburse" });
    expect(server.received).toHaveLength(1);
  });

  it("ends an answer that keeps trickling past the deadline, which no idle timeout would", async () => {
    // A space every 50 ms: undici's body timeout (time between chunks) never fires.
    const server = await startServer((_request, response) => stallAfterHeaders(response, " "));
    const error = await failure(makeClient(server.url).getPayment("pay_123"));
    expect(error).toBeInstanceOf(PaymentTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 300, cause: { code: "PAYMENT_ATTEMPT_DEADLINE" } });
    expect(server.received).toHaveLength(3);
  });

  it("times an attempt sent after the earlier ones all ended", async () => {
    // The first request is answered, the second never.
    const server = await startServer((_request, response, index) => {
      if (index === 0) json(response, 200, PAYMENT);
    });
    const client = makeClient(server.url, { retry: { maxAttempts: 1 } });
    await client.getPayment("pay_123");
    const error = await failure(client.getPayment("pay_123"));
    expect(error).toBeInstanceOf(PaymentTimeoutError);
    expect(server.received).toHaveLength(2);
  });

  it("ends only the attempts past their deadline among many at once", async () => {
    // Every other request is never answered.
    const server = await startServer((_request, response, index) => {
      if (index % 2 === 0) json(response, 200, PAYMENT);
    });
    const client = makeClient(server.url, { retry: { maxAttempts: 1 } });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => client.getPayment("pay_123")),
    );
    const read = outcomes.filter((outcome) => outcome.status === "fulfilled");
    const reasons = outcomes.flatMap((outcome) =>
      outcome.status === "rejected" ? [outcome.reason] : [],
    );
    expect(read).toHaveLength(5);
    expect(reasons).toHaveLength(5);
    for (const reason of reasons) expect(reason).toBeInstanceOf(PaymentTimeoutError);
    expect(server.received).toHaveLength(10);
  });
});

describe("PaymentClient bound on an answer's size", () => {
  /** A 200 whose body goes past the client's bound: a payment padded with 2 MiB of spaces. */
  function oversized(response: ServerResponse): void {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(`${" ".repeat(2 * 1024 * 1024)}${JSON.stringify(PAYMENT)}`);
  }

  it("stops reading a GET answer past 1 MiB: a network failure, each attempt bounded", async () => {
    const server = await startServer((_request, response) => oversized(response));
    const error = await failure(makeClient(server.url).getPayment("pay_123"));
    expect(error).toBeInstanceOf(PaymentNetworkError);
    expect(error).toMatchObject({ cause: { code: "UND_ERR_RES_EXCEEDED_MAX_SIZE" } });
  });

  it("takes a disbursement answered past 1 MiB as an outcome unknown, never sent again", async () => {
    const server = await startServer((_request, response) => oversized(response));
    const cause = await unknownCause(makeClient(server.url).disburse(REQUEST));
    expect(cause).toMatchObject({ cause: { code: "UND_ERR_RES_EXCEEDED_MAX_SIZE" } });
    expect(server.received).toHaveLength(1);
  });
});

describe("PaymentClient payment requests (never sent twice unless refused)", () => {
  it("does not retry a disbursement answered 500", async () => {
    const server = await startServer((_request, response) =>
      json(response, 500, httpError(500, "an error occurred")),
    );
    const cause = await unknownCause(makeClient(server.url).disburse(REQUEST));
    expect(cause).toBeInstanceOf(PaymentApiError);
    expect(cause).toMatchObject({ statusCode: 500 });
    expect(server.received).toHaveLength(1);
  });

  it("does not retry a disbursement whose answer never came", async () => {
    const server = await startServer(() => {});
    const cause = await unknownCause(makeClient(server.url).disburse(REQUEST));
    expect(cause).toBeInstanceOf(PaymentTimeoutError);
    expect(server.received).toHaveLength(1);
  });

  it("does not retry a disbursement whose connection was cut after the request was read", async () => {
    const server = await startServer((_request, response) => response.socket?.destroy());
    const cause = await unknownCause(makeClient(server.url).disburse(REQUEST));
    expect(cause).toBeInstanceOf(PaymentNetworkError);
    expect(cause).toMatchObject({ requestSent: true });
    expect(server.received).toHaveLength(1);
  });

  it("does not let undici resend a collection on a fresh socket when the kept-alive one dies", async () => {
    const server = await startServer((request, response) =>
      request.method === "GET" ? json(response, 200, PAYMENT) : response.socket?.destroy(),
    );
    const client = makeClient(server.url);
    // undici may open a second connection while it checks an idle one; two GETs leave both open.
    await client.getPayment("pay_123");
    await client.getPayment("pay_123");
    await unknownCause(client.collect(REQUEST));
    const posts = server.received.filter((request) => request.method === "POST");
    expect(posts).toHaveLength(1);
    // The POST went out on a socket a GET had left open: a reused keep-alive connection.
    const getPorts = server.received
      .filter((request) => request.method === "GET")
      .map((request) => request.remotePort);
    expect(getPorts).toContain(posts[0]?.remotePort);
  });

  it("does not retry a collection whose 201 body is not a payment", async () => {
    const server = await startServer((_request, response) => json(response, 201, { ok: true }));
    const cause = await unknownCause(makeClient(server.url).collect(REQUEST));
    expect(cause).toBeInstanceOf(InvalidResponseError);
    expect(server.received).toHaveLength(1);
  });

  it("retries a disbursement the API refused with 429, and returns the payment", async () => {
    const server = await startServer((_request, response, index) =>
      index === 0 ? json(response, 429, httpError(429, "too many")) : json(response, 201, PAYMENT),
    );
    const payment = await makeClient(server.url).disburse(REQUEST);
    expect(payment.id).toBe("pay_123");
    expect(server.received).toHaveLength(2);
    expect(server.received.map((request) => request.body)).toEqual([
      JSON.stringify(REQUEST),
      JSON.stringify(REQUEST),
    ]);
  });

  it("throws PaymentApiError 429 once the retries after 429 are used up", async () => {
    const server = await startServer((_request, response) =>
      json(response, 429, httpError(429, "too many")),
    );
    const error = await failure(makeClient(server.url).disburse(REQUEST));
    expect(error).toBeInstanceOf(PaymentApiError);
    expect(error).toMatchObject({ statusCode: 429, operation: "disburse" });
    expect(server.received).toHaveLength(3);
  });

  it("retries a disbursement whose connection was refused, then says it was never sent", async () => {
    const closed = await startServer(() => {});
    const url = closed.url;
    const server = servers.pop();
    await new Promise((resolve) => server?.close(resolve));
    let attempts = 0;
    const counting: RateLimiter = {
      tryAcquire: async (): Promise<Acquisition> => {
        attempts += 1;
        return { granted: true };
      },
    };
    const error = await failure(makeClient(url, { limiter: counting }).disburse(REQUEST));
    expect(error).toBeInstanceOf(PaymentNetworkError);
    expect(error).toMatchObject({ requestSent: false, operation: "disburse" });
    expect(attempts).toBe(3);
  });

  it("refuses an invalid payment request without sending anything", async () => {
    const server = await startServer((_request, response) => json(response, 201, PAYMENT));
    const error = await failure(makeClient(server.url).disburse({ amount: -5, phoneNumber: "12" }));
    expect(error).toBeInstanceOf(TypeError);
    expect(server.received).toHaveLength(0);
  });
});

describe("PaymentClient errors", () => {
  it.each([400, 401, 403, 404])(
    "turns a %i into PaymentApiError with the HttpError's message and details, without retrying",
    async (statusCode) => {
      const details = [{ field: "amount", problem: "too small" }];
      const server = await startServer((_request, response) =>
        json(response, statusCode, httpError(statusCode, `refused ${statusCode}`, details)),
      );
      const client = makeClient(server.url);
      for (const call of [client.disburse(REQUEST), client.getPayment("pay_123")]) {
        const error = await failure(call);
        expect(error).toBeInstanceOf(PaymentApiError);
        expect(error).toMatchObject({ statusCode, apiMessage: `refused ${statusCode}`, details });
      }
      expect(server.received).toHaveLength(2);
    },
  );

  it("uses an excerpt of a body that is not an HttpError as the message", async () => {
    const page = `<html><body>  Bad   request from the proxy ${"x".repeat(500)}</body></html>`;
    const server = await startServer((_request, response) => {
      response.writeHead(400, { "content-type": "text/html" });
      response.end(page);
    });
    const error = await failure(makeClient(server.url).getPayment("pay_123"));
    expect(error).toBeInstanceOf(PaymentApiError);
    if (!(error instanceof PaymentApiError)) return;
    expect(error.apiMessage.startsWith("<html><body> Bad request from the proxy xxx")).toBe(true);
    expect(error.apiMessage.length).toBeLessThanOrEqual(201);
    expect(error.details).toEqual([]);
  });

  it("copes with an empty error body", async () => {
    const server = await startServer((_request, response) => {
      response.writeHead(403);
      response.end();
    });
    const error = await failure(makeClient(server.url).collect(REQUEST));
    expect(error).toBeInstanceOf(PaymentApiError);
    expect(error).toMatchObject({ statusCode: 403, apiMessage: "(empty body)" });
  });

  it("throws InvalidResponseError naming the id of a GET answer that has none to read", async () => {
    const server = await startServer((_request, response) =>
      json(response, 200, { id: "", status: "lost" }),
    );
    const error = await failure(makeClient(server.url).getPayment("pay_123"));
    expect(error).toBeInstanceOf(InvalidResponseError);
    if (!(error instanceof InvalidResponseError)) return;
    expect(error.problems.some((problem) => problem.startsWith("id:"))).toBe(true);
    expect(server.received).toHaveLength(1);
  });

  it("reads a payment with an unknown status and a null field, and logs what was odd", async () => {
    const server = await startServer((_request, response) =>
      json(response, 200, { ...PAYMENT, status: "PROCESSING", description: null, fee: "50" }),
    );
    const logs = capturedLogger("warn");
    const payment = await makeClient(server.url, { logger: logs.logger }).getPayment("pay_123");
    expect(payment).toMatchObject({ id: "pay_123", status: "PROCESSING", amount: 5000 });
    expect(payment.fee).toBeUndefined();
    const odd = logs.lines.find((line) => line.msg === "payment api answer was odd");
    expect(odd?.oddities).toEqual(expect.arrayContaining([expect.stringMatching(/^status:/)]));
    expect(odd?.oddities).toEqual(expect.arrayContaining([expect.stringMatching(/^fee:/)]));
  });

  it("throws InvalidResponseError for a 200 that is not JSON", async () => {
    const server = await startServer((_request, response) => {
      response.writeHead(200);
      response.end("hello");
    });
    const error = await failure(makeClient(server.url).getUserInfo("237670000001"));
    expect(error).toBeInstanceOf(InvalidResponseError);
  });
});

describe("PaymentClient requests", () => {
  it("sends X-API-Key on every request, retries included", async () => {
    const server = await startServer((request, response, index) => {
      if (index === 0) return json(response, 503, httpError(503, "busy"));
      return request.method === "POST"
        ? json(response, 201, PAYMENT)
        : json(response, 200, { firstName: "Ada", lastName: "N" });
    });
    const client = makeClient(server.url);
    await client.getUserInfo("237670000001");
    await client.collect(REQUEST);
    expect(server.received).toHaveLength(3);
    for (const request of server.received) expect(request.headers["x-api-key"]).toBe(API_KEY);
  });

  it("encodes path segments and keeps the base URL's path prefix", async () => {
    const server = await startServer((_request, response) => json(response, 200, PAYMENT));
    await makeClient(`${server.url}/api/v1/`).getPayment("a/b c?d");
    expect(server.received[0]?.url).toBe("/api/v1/payments/a%2Fb%20c%3Fd");
  });

  it("signs every request over its method, path and exact body", async () => {
    const keys = keyPair();
    const publicKey = loadPublicKey(keys.publicKeyPem);
    const verdicts: Array<SignatureProblem | null> = [];
    const server = await startServer((request, response) => {
      verdicts.push(
        verifyParts({
          publicKey,
          signature: request.headers["x-sig"]?.toString(),
          timestamp: request.headers["x-sig-timestamp"]?.toString(),
          method: request.method,
          pathAndQuery: request.url,
          body: request.body,
        }),
      );
      json(response, request.method === "POST" ? 201 : 200, PAYMENT);
    });
    const client = makeClient(`${server.url}/v1`, { requestSigningKeyPem: keys.privateKeyPem });
    await client.disburse(REQUEST);
    await client.getPayment("pay_123");
    expect(verdicts).toEqual([null, null]);
  });
});

describe("PaymentClient response signatures", () => {
  const serverKeys = keyPair();
  const otherKeys = keyPair();

  /**
   * Answers like `json`, signed with `privateKeyPem` (or unsigned when undefined), by a
   * service whose clock is `clockOffMs` away from ours.
   */
  function signedServer(
    statusCode: (method: string) => number,
    body: unknown,
    privateKeyPem?: string,
    clockOffMs = 0,
  ) {
    const key = privateKeyPem === undefined ? undefined : loadPrivateKey(privateKeyPem);
    return startServer((request, response) => {
      const text = JSON.stringify(body);
      const headers = key
        ? signParts(key, {
            method: request.method,
            pathAndQuery: request.url,
            body: text,
            timestampMs: Date.now() + clockOffMs,
          })
        : {};
      response.writeHead(statusCode(request.method), {
        "content-type": "application/json",
        ...headers,
      });
      response.end(text);
    });
  }

  const verifying = { responseVerifyKeyPem: serverKeys.publicKeyPem };

  it("accepts well-signed answers to GET and POST", async () => {
    const server = await signedServer(
      (method) => (method === "POST" ? 201 : 200),
      PAYMENT,
      serverKeys.privateKeyPem,
    );
    const client = makeClient(server.url, verifying);
    expect((await client.getPayment("pay_123")).id).toBe("pay_123");
    expect((await client.disburse(REQUEST)).id).toBe("pay_123");
  });

  it("accepts well-signed answers from a service whose clock is 10 minutes off", async () => {
    for (const clockOffMs of [-10 * 60_000, 10 * 60_000]) {
      const server = await signedServer(
        (method) => (method === "POST" ? 201 : 200),
        PAYMENT,
        serverKeys.privateKeyPem,
        clockOffMs,
      );
      const client = makeClient(server.url, verifying);
      expect((await client.disburse(REQUEST)).id).toBe("pay_123");
      expect((await client.getPayment("pay_123")).id).toBe("pay_123");
    }
  });

  it("throws SignatureError for an unsigned GET answer, without retrying", async () => {
    const server = await signedServer(() => 200, PAYMENT);
    const error = await failure(makeClient(server.url, verifying).getPayment("pay_123"));
    expect(error).toBeInstanceOf(SignatureError);
    expect(error).toMatchObject({ problem: "missing" });
    expect(server.received).toHaveLength(1);
  });

  it("does not trust a 201 signed with another key: the disbursement's outcome is unknown", async () => {
    const server = await signedServer(() => 201, PAYMENT, otherKeys.privateKeyPem);
    const cause = await unknownCause(makeClient(server.url, verifying).disburse(REQUEST));
    expect(cause).toBeInstanceOf(SignatureError);
    expect(cause).toMatchObject({ problem: "mismatch" });
    expect(server.received).toHaveLength(1);
  });

  it("does not trust a refusal with a bad signature either", async () => {
    const server = await signedServer(
      () => 400,
      httpError(400, "invalid"),
      otherKeys.privateKeyPem,
    );
    const cause = await unknownCause(makeClient(server.url, verifying).collect(REQUEST));
    expect(cause).toBeInstanceOf(SignatureError);
  });

  it("trusts a well-signed refusal", async () => {
    const server = await signedServer(
      () => 400,
      httpError(400, "invalid"),
      serverKeys.privateKeyPem,
    );
    const error = await failure(makeClient(server.url, verifying).collect(REQUEST));
    expect(error).toBeInstanceOf(PaymentApiError);
    expect(error).toMatchObject({ statusCode: 400, apiMessage: "invalid" });
  });
});

describe("PaymentClient rate limiting and logging", () => {
  it("waits for a slot from the limiter before sending", async () => {
    const server = await startServer((_request, response) => json(response, 200, PAYMENT));
    const limiter = new LocalRateLimiter({ limit: 1, windowMs: 300 });
    const client = makeClient(server.url, { limiter });
    await Promise.all([client.getPayment("a"), client.getPayment("b")]);
    expect(server.received).toHaveLength(2);
    const [first, second] = server.received;
    expect((second?.atMs ?? 0) - (first?.atMs ?? 0)).toBeGreaterThanOrEqual(250);
  });

  it("throws RateLimitedError when no slot comes within maxRateLimitWaitMs", async () => {
    const server = await startServer((_request, response) => json(response, 201, PAYMENT));
    const limiter = new LocalRateLimiter({ limit: 1, windowMs: 60_000 });
    const client = makeClient(server.url, { limiter, maxRateLimitWaitMs: 50 });
    await client.disburse(REQUEST);
    const error = await failure(client.disburse(REQUEST));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(server.received).toHaveLength(1);
  });

  it("logs each request at debug level with a masked phone number and no API key", async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: "debug",
      destination: { write: (line) => void lines.push(line) },
    });
    const server = await startServer((_request, response) =>
      json(response, 200, { firstName: "Ada", lastName: "N" }),
    );
    await makeClient(server.url, { logger }).getUserInfo("237670000001");
    expect(lines).toHaveLength(1);
    const entry: unknown = JSON.parse(lines[0] ?? "{}");
    expect(entry).toMatchObject({ level: "debug", method: "GET", status: 200, attempt: 1 });
    expect(entry).toHaveProperty("durationMs");
    expect(lines[0]).toContain("/data/userinfo/2376");
    expect(lines[0]).not.toContain("237670000001");
    expect(lines[0]).not.toContain(API_KEY);
  });
});

describe("PaymentClient close", () => {
  it("ends a retry backoff at once and throws the last answer", async () => {
    const server = await startServer((_request, response) =>
      json(response, 503, httpError(503, "maintenance"), { "retry-after": "10" }),
    );
    const client = makeClient(server.url, { retry: { maxTotalMs: 60_000 } });
    const call = failure(client.getPayment("pay_123"));
    while (server.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await client.close();
    await client.close();
    const error = await call;
    expect(error).toBeInstanceOf(PaymentApiError);
    expect(error).toMatchObject({ statusCode: 503, retryAfterMs: 10_000 });
    expect(server.received).toHaveLength(1);
  });

  it("sends nothing once closed", async () => {
    const server = await startServer((_request, response) => json(response, 201, PAYMENT));
    const client = makeClient(server.url);
    await client.close();
    const error = await failure(client.disburse(REQUEST));
    expect(error).toBeInstanceOf(PaymentNetworkError);
    expect(error).toMatchObject({ requestSent: false });
    expect(server.received).toHaveLength(0);
  });
});

describe("PaymentClient options", () => {
  it.each([
    [{ baseUrl: "ftp://example.com" }, "baseUrl"],
    [{ baseUrl: "http://example.com/?q=1" }, "baseUrl"],
    [{ baseUrl: "http://user:secret@example.com" }, "baseUrl"],
    [{ apiKey: "" }, "apiKey"],
    [{ apiKey: "key\r\nx-evil: 1" }, "apiKey"],
    [{ connectTimeoutMs: 0 }, "connectTimeoutMs"],
    [{ connectTimeoutMs: 500, requestTimeoutMs: 500 }, "connectTimeoutMs must be below"],
    [{ retry: { maxAttempts: 0 } }, "retry.maxAttempts"],
    [{ retry: { baseDelayMs: 100, maxDelayMs: 50 } }, "retry.maxDelayMs"],
    [{ maxRateLimitWaitMs: -1 }, "maxRateLimitWaitMs"],
    [{ requestSigningKeyPem: "not a key" }, "requestSigningKeyPem"],
    [{ responseVerifyKeyPem: "not a key" }, "responseVerifyKeyPem"],
  ])("refuses %j at construction", (options, mention) => {
    expect(
      () => new PaymentClient({ baseUrl: "http://127.0.0.1:1", apiKey: API_KEY, ...options }),
    ).toThrow(mention);
  });

  it("reports every bad option at once", () => {
    expect(() => new PaymentClient({ baseUrl: "nope", apiKey: "", requestTimeoutMs: 0 })).toThrow(
      /baseUrl[\s\S]*apiKey[\s\S]*requestTimeoutMs/,
    );
  });

  it("derives a shorter connect timeout from a short request timeout", () => {
    const client = makeClient("http://127.0.0.1:1", {
      connectTimeoutMs: undefined,
      requestTimeoutMs: 2_000,
    });
    expect(client.options.connectTimeoutMs).toBe(1_000);
  });

  it("fills in the defaults", () => {
    const client = makeClient("http://127.0.0.1:1", {
      connectTimeoutMs: undefined,
      requestTimeoutMs: undefined,
      retry: undefined,
    });
    expect(client.options).toMatchObject({
      connectTimeoutMs: 5_000,
      requestTimeoutMs: 15_000,
      maxRateLimitWaitMs: 60_000,
      retry: { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 5_000, maxTotalMs: 20_000 },
      limiter: undefined,
    });
  });
});
