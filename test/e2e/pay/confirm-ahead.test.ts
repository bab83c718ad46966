/**
 * A Confirm pressed by someone who could pay at their last /pay in this process is claimed
 * in the access step's own Redis round trip (features/shared/confirm-ahead.ts): the press is
 * counted in the claim's atomic step, and the claim checks the role itself. Counted through
 * a relay in front of Redis: the round trips a Confirm waits for before its POST /disburse.
 * And every guard on that path: a press over the limit, a payer demoted or removed since,
 * another payer's forged press, a stranger's, a press from a group: nothing claimed, no POST.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freeLoopbackPort } from "../../../src/dev/free-port.js";
import { TcpRelay } from "../../../src/dev/tcp-relay.js";
import { keys } from "../../../src/store/keys.js";
import { isPromptReading, promptRecord, showPrompt } from "../../support/flows.js";
import {
  ADMIN_ID,
  type Harness,
  harnessPerTest,
  PAYER_ID,
  STRANGER_ID,
  startHarness,
} from "../../support/harness.js";
import { testRedis, testRedisUrl } from "../../support/redis.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;

/**
 * An HTTP pass-through to the sandbox that notes, as each POST /disburse arrives (before it
 * is forwarded), the relay's Redis round trips so far.
 */
async function countingProxy(relay: TcpRelay, target: () => string) {
  const atPosts: number[] = [];
  const body = (request: IncomingMessage) =>
    new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => resolve(Buffer.concat(chunks)));
      request.on("error", reject);
    });
  const server: Server = createServer((request, response) => {
    if (request.method === "POST" && request.url?.startsWith("/disburse")) {
      atPosts.push(relay.counters.roundTrips);
    }
    void (async () => {
      const payload = await body(request);
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === "string" && name !== "host" && name !== "content-length") {
          headers.set(name, value);
        }
      }
      const answer = await fetch(`${target()}${request.url ?? "/"}`, {
        method: request.method ?? "GET",
        headers,
        ...(payload.length > 0 ? { body: payload } : {}),
      });
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (name !== "content-length" && name !== "transfer-encoding") out[name] = value;
      });
      response.writeHead(answer.status, out);
      response.end(Buffer.from(await answer.arrayBuffer()));
    })().catch(() => {
      response.writeHead(502);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    atPosts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("Confirm claimed with the access step's reads: Redis round trips", () => {
  let relay: TcpRelay;
  let proxy: Awaited<ReturnType<typeof countingProxy>>;
  let h: Harness;

  beforeEach(async () => {
    const redis = new URL(testRedisUrl());
    relay = await TcpRelay.start({
      targetHost: redis.hostname,
      targetPort: Number(redis.port || 6379),
    });
    // The sandbox's port chosen first: the app checks the API through the proxy at start.
    const sandboxPort = await freeLoopbackPort();
    proxy = await countingProxy(relay, () => `http://127.0.0.1:${sandboxPort}`);
    h = await startHarness({
      sandbox: { port: sandboxPort },
      env: {
        REDIS_URL: `redis://127.0.0.1:${relay.port}${redis.pathname}`,
        PAYMENT_API_BASE_URL: proxy.url,
      },
    });
  });

  afterEach(async () => {
    await h.close();
    await proxy.close();
    await relay.close();
  });

  it("waits for one Redis round trip between the press and its POST /disburse", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const waited: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      const prompt = await showPrompt(h.emulator, payer, `/pay 237670000001 ${5000 + round}`);
      await promptRecord(h, prompt);
      const pending = h.emulator.waitForMessage(isPromptReading(prompt, "Pending"));
      const before = relay.counters.roundTrips;
      await payer.pressButton(prompt, 0);
      await pending;
      const atPost = proxy.atPosts[round];
      expect(atPost).toBeDefined();
      waited.push((atPost ?? 0) - before);
    }
    expect(h.sandbox.countRequests(DISBURSE)).toBe(3);
    // A background loop's command can fall within a step (one more), or have its own burst
    // still unanswered when the press's goes out (counted as one): one Confirm in three is
    // enough to see the one round trip (two before: the access step's, then the claim).
    expect(waited).toContain(1);
  });
});

describe("Confirm claimed ahead: every guard", () => {
  const h = harnessPerTest();

  function payer() {
    return h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  }

  /** A prompt of the payer's, stored: the payer is now known to this process as one who pays. */
  async function storedPrompt(amount = 5000) {
    const prompt = await showPrompt(h.emulator, payer(), `/pay 237670000001 ${amount}`);
    const payout = await promptRecord(h, prompt);
    return { prompt, payout };
  }

  async function pressCount(userId: number): Promise<number | null> {
    const redis = testRedis();
    try {
      const count = await redis.get(keys(h.prefix).throttle(`press:${userId}`));
      return count === null ? null : Number(count);
    } finally {
      redis.disconnect();
    }
  }

  async function stateOf(payoutId: string) {
    return (await h.app.stores.payouts.get(payoutId))?.state;
  }

  it("counts a Confirm's press once and pays", async () => {
    const { prompt, payout } = await storedPrompt();
    const pending = h.emulator.waitForMessage(isPromptReading(prompt, "Pending"));
    const press = await payer().pressButton(prompt, 0);
    expect((await h.emulator.waitForCallbackAnswer(press.callbackQueryId)).text).toBe("Sending…");
    await pending;
    expect(await pressCount(PAYER_ID)).toBe(1);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
    expect(await stateOf(payout.id)).not.toBe("awaiting_confirmation");
  });

  it("claims nothing for a press over the person's limit: no POST, the prompt still open", async () => {
    const { prompt, payout } = await storedPrompt();
    const redis = testRedis();
    try {
      // The press limit (60 a minute) used up in this window.
      await redis.set(keys(h.prefix).throttle(`press:${PAYER_ID}`), "60", "PX", 60_000);
    } finally {
      redis.disconnect();
    }

    const press = await payer().pressButton(prompt, 0);
    const answer = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);

    expect(answer.text).toBe("Too many button presses: wait a few seconds, then press again.");
    expect(await pressCount(PAYER_ID)).toBe(61);
    expect(await stateOf(payout.id)).toBe("awaiting_confirmation");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);

    // Once the window has passed, the same button pays.
    const redisAgain = testRedis();
    try {
      await redisAgain.del(keys(h.prefix).throttle(`press:${PAYER_ID}`));
    } finally {
      redisAgain.disconnect();
    }
    const pending = h.emulator.waitForMessage(isPromptReading(prompt, "Pending"));
    await payer().pressButton(prompt, 0);
    await pending;
    expect(h.sandbox.countRequests(DISBURSE)).toBe(1);
  });

  it("audits a payer promoted since their /pay in the role the claim read, not the one remembered", async () => {
    const { prompt } = await storedPrompt();
    await h.app.stores.staff.set(PAYER_ID, "admin");
    const pending = h.emulator.waitForMessage(isPromptReading(prompt, "Pending"));
    await payer().pressButton(prompt, 0);
    await pending;

    const entries = (await h.app.stores.audit.recent(20)).filter((e) => e.actorId === PAYER_ID);
    const confirm = entries.find((e) => e.action === "confirm");
    expect(confirm?.actorRole).toBe("admin");
    // Only the prompt, made while they were a payer, says "payer".
    expect(entries.filter((e) => e.actorRole === "payer").map((e) => e.action)).toEqual(["prompt"]);
  });

  it("claims nothing for a payer demoted since their /pay", async () => {
    const { prompt, payout } = await storedPrompt();
    await h.app.stores.staff.set(PAYER_ID, "viewer");

    const press = await payer().pressButton(prompt, 0);
    const answer = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);

    expect(answer.text).toContain("You can no longer make payments");
    expect(answer.showAlert).toBe(true);
    expect(await stateOf(payout.id)).toBe("awaiting_confirmation");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });

  it("claims nothing for a payer removed from the staff since their /pay", async () => {
    const { prompt, payout } = await storedPrompt();
    await h.app.stores.staff.remove(PAYER_ID);

    const press = await payer().pressButton(prompt, 0);
    const answer = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);

    expect(answer.text).toContain(String(PAYER_ID));
    expect(await stateOf(payout.id)).toBe("awaiting_confirmation");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });

  it("claims nothing for another payer's forged press, nor a stranger's", async () => {
    const { payout } = await storedPrompt();
    // The admin pays too, and is known to this process after a /pay of their own.
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Ada", languageCode: "en" });
    await promptRecord(h, await showPrompt(h.emulator, admin, "/pay 237670000002 7000"));
    const stranger = h.emulator.user({ id: STRANGER_ID, firstName: "Eve", languageCode: "en" });

    const forged = await admin.pressCallbackData(payout.messageId ?? 0, `c:${payout.id}`);
    const forgedAnswer = await h.emulator.waitForCallbackAnswer(forged.callbackQueryId);
    const strangers = await stranger.pressCallbackData(payout.messageId ?? 0, `c:${payout.id}`);
    const strangersAnswer = await h.emulator.waitForCallbackAnswer(strangers.callbackQueryId);

    expect(forgedAnswer.showAlert).toBe(true);
    expect(forgedAnswer.text).not.toBe("Sending…");
    expect(strangersAnswer.text).toContain(String(STRANGER_ID));
    expect(await stateOf(payout.id)).toBe("awaiting_confirmation");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });

  it("claims nothing for a known payer's press from a group", async () => {
    const { payout } = await storedPrompt();
    const group = h.emulator.group(-100_777);

    const press = await payer().pressCallbackData(payout.messageId ?? 0, `c:${payout.id}`, {
      chat: group,
    });
    const answer = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);

    expect(answer.text).not.toBe("Sending…");
    expect(await stateOf(payout.id)).toBe("awaiting_confirmation");
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });
});

describe("Confirm claimed ahead: what follows the claim names the role just read", () => {
  const h = harnessPerTest({ env: { APPROVAL_THRESHOLD_XAF: "100000" } });

  it("asks for approval in the role the payer has now, promoted since their /pay", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 237670000001 150000");
    const payout = await promptRecord(h, prompt);
    await h.app.stores.staff.set(PAYER_ID, "admin");

    const press = await payer.pressButton(prompt, 0);
    await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
    await expect
      .poll(async () => (await h.app.stores.payouts.get(payout.id))?.state)
      .toBe("awaiting_approval");

    const entries = (await h.app.stores.audit.recent(20)).filter((e) => e.actorId === PAYER_ID);
    // Only the prompt, made while they were a payer, says "payer".
    expect(entries.filter((e) => e.actorRole === "payer").map((e) => e.action)).toEqual(["prompt"]);
    expect(entries.filter((e) => e.actorRole === "admin").length).toBeGreaterThan(0);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(0);
  });
});
