/**
 * Two bot processes on one Redis prefix, in long-polling mode, with the same Telegram
 * emulator and Payment API sandbox. Each process talks to both through its own recording
 * proxy, so the test knows which replica sent every request and when it was in flight.
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type EmulatedUser, plainText } from "../../../src/dev/telegram-emulator/index.js";
import { messagesWith, payAndConfirm } from "../../support/flows.js";
import { ADMIN_ID, APPROVER_ID, PAYER_ID, VIEWER_ID } from "../../support/harness.js";
import { type BotProcess, startBot, waitUntil } from "../../support/processes.js";
import { lapsePollerLease, startWorld, type World } from "../../support/world.js";

/** One request that went through a proxy: when it started and when its answer ended. */
interface Exchange {
  method: string;
  path: string;
  startMs: number;
  endMs: number | undefined;
}

/** A pass-through HTTP proxy to `target` that records every exchange. */
class RecordingProxy {
  readonly exchanges: Exchange[] = [];
  readonly #server = createServer((req, res) => this.#forward(req, res));
  readonly #target: URL;
  url = "";

  constructor(target: string) {
    this.#target = new URL(target);
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    const address = this.#server.address();
    if (typeof address !== "object" || address === null) throw new Error("no proxy address");
    this.url = `http://127.0.0.1:${address.port}`;
    return this;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #forward(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", this.#target);
    const exchange: Exchange = {
      method: req.method ?? "GET",
      path: url.pathname,
      startMs: Date.now(),
      endMs: undefined,
    };
    this.exchanges.push(exchange);
    const end = () => {
      exchange.endMs ??= Date.now();
    };
    const upstream = request(
      url,
      { method: req.method, headers: { ...req.headers, host: this.#target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on("end", end);
      },
    );
    upstream.on("error", () => {
      end();
      res.destroy();
    });
    // The bot went away (killed) mid-request: so does the request.
    res.on("close", () => {
      end();
      upstream.destroy();
    });
    req.pipe(upstream);
  }
}

const PAYERS = [ADMIN_ID, PAYER_ID, 2001, 2002, 2003];
const PAYOUTS_PER_PAYER = 10;
const STAFF = `${ADMIN_ID}:admin,${PAYER_ID}:payer,${VIEWER_ID}:viewer,${APPROVER_ID}:approver,2001:payer,2002:payer,2003:payer`;

interface Replica {
  bot: BotProcess;
  telegram: RecordingProxy;
  payments: RecordingProxy;
}

/** True when two time intervals share a moment (an open one lasts until now). */
function overlap(a: Exchange, b: Exchange): boolean {
  return a.startMs < (b.endMs ?? Date.now()) && b.startMs < (a.endMs ?? Date.now());
}

describe("two bot processes on one Redis", () => {
  let world: World;
  const proxies: RecordingProxy[] = [];

  beforeEach(async () => {
    // Polling only (no callback URL): every final status is found by the trackers.
    world = await startWorld({
      sandbox: { settleDelayMs: 500 },
      env: { STAFF, PAYMENT_ENV: "production", STATUS_POLL_INTERVAL_MS: "200" },
    });
  });

  afterEach(async () => {
    await world.close();
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  });

  async function startReplica(): Promise<Replica> {
    const telegram = await new RecordingProxy(world.emulator.apiRoot).listen();
    const payments = await new RecordingProxy(world.sandbox.url).listen();
    proxies.push(telegram, payments);
    const bot = await startBot({
      ...world.env,
      TELEGRAM_API_ROOT: telegram.url,
      PAYMENT_API_BASE_URL: payments.url,
    });
    return { bot, telegram, payments };
  }

  /** Confirms `count` payouts one after the other as `user`. */
  async function payMany(user: EmulatedUser, count: number): Promise<void> {
    for (let i = 1; i <= count; i++) {
      await payAndConfirm(world.emulator, user, `/pay 2376700${user.id}${i % 10} ${1000 + i}`);
    }
  }

  it("settles 50 payouts from several payers once each, with one poller and one poll at a time", async () => {
    const replicas = [await startReplica(), await startReplica()];
    const users = PAYERS.map((id) => world.emulator.user({ id, firstName: `U${id}` }));
    await Promise.all(users.map((user) => payMany(user, PAYOUTS_PER_PAYER)));
    const total = PAYERS.length * PAYOUTS_PER_PAYER;
    await waitUntil(
      () =>
        PAYERS.every((id) => messagesWith(world.emulator, id, "Paid").length >= PAYOUTS_PER_PAYER),
      "every payer to be told of every payout",
      20_000,
    );
    // A little longer: a duplicate notice would show up now.
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(world.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(total);
    const payments = world.sandbox.snapshot().payments;
    expect(payments).toHaveLength(total);
    const notices = PAYERS.flatMap((id) => messagesWith(world.emulator, id, "Paid"));
    expect(notices).toHaveLength(total);
    for (const payment of payments)
      expect(notices.filter((m) => plainText(m).includes(payment.id))).toHaveLength(1);

    // Every payment polled by one replica at a time: sorted by start, each poll began
    // after the previous one of the same payment had its answer, by at least half the
    // first poll interval (the next poll is only scheduled once an answer is in).
    const polls = replicas.flatMap((replica, index) =>
      replica.payments.exchanges
        .filter((e) => e.method === "GET" && e.path.startsWith("/payments/"))
        .map((e) => ({ ...e, replica: index })),
    );
    for (const payment of payments) {
      const mine = polls.filter((e) => e.path === `/payments/${payment.id}`);
      mine.sort((a, b) => a.startMs - b.startMs);
      expect(mine.length).toBeGreaterThan(0);
      for (let i = 1; i < mine.length; i++) {
        const previous = mine[i - 1];
        const next = mine[i];
        if (!previous || !next) continue;
        expect(next.startMs - (previous.endMs ?? Number.POSITIVE_INFINITY)).toBeGreaterThanOrEqual(
          100,
        );
      }
    }
    // Both trackers took part.
    expect(new Set(polls.map((e) => e.replica)).size).toBe(2);
    expectOnePollerAtATime(replicas);
  });

  it("lets the other replica take over Telegram polling when the polling one dies", async () => {
    const replicas = [await startReplica(), await startReplica()];
    const leaderIndex = replicas.findIndex((r) =>
      r.bot.process.hasLog((line) => line.msg === "this replica now polls Telegram"),
    );
    const leader = replicas[leaderIndex];
    const follower = replicas[1 - leaderIndex];
    if (!leader || !follower) throw new Error("no replica polls Telegram");
    const payer = world.emulator.user({ id: PAYER_ID, firstName: "Paul" });
    await payAndConfirm(world.emulator, payer, "/pay 237670000001 1500");

    await leader.bot.process.kill("SIGKILL");
    // A killed process cannot release its lease; it lapses (after 30 s, brought forward).
    await lapsePollerLease(world);
    await follower.bot.process.waitForLog((line) => line.msg === "this replica now polls Telegram");
    const notice = world.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("Paid: 1,600 FCFA"),
      10_000,
    );
    await payAndConfirm(world.emulator, payer, "/pay 237670000001 1600");
    await notice;
    expect(world.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(2);
    expect(messagesWith(world.emulator, PAYER_ID, "Paid")).toHaveLength(2);
    expectOnePollerAtATime(replicas);
  });

  /** No getUpdates of one replica was in flight while one of the other's was. */
  function expectOnePollerAtATime(replicas: Replica[]): void {
    const [a, b] = replicas.map((r) =>
      r.telegram.exchanges.filter((e) => e.path.endsWith("/getUpdates")),
    );
    if (!a || !b) throw new Error("two replicas expected");
    expect(a.length + b.length).toBeGreaterThan(0);
    const clashes = a.filter((x) => b.some((y) => overlap(x, y)));
    expect(clashes).toEqual([]);
    // And Telegram never had to end a poll for a concurrent one (409 Conflict).
    for (const replica of replicas)
      expect(replica.bot.process.hasLog((line) => line.msg === "getUpdates failed; retrying")).toBe(
        false,
      );
  }
});
