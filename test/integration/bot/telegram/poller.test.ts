/**
 * The long poller against a Bot API server that does not hold the poll: it answers at once
 * whatever `timeout` it was asked. Requests are counted by a real HTTP server; the bounds
 * are counts in a window, not timings.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Telegram } from "telegraf";
import type { Update } from "telegraf/types";
import { afterEach, describe, expect, it } from "vitest";
import { UpdatePoller } from "../../../../src/bot/telegram/poller.js";
import { silentLogger } from "../../../../src/logger.js";
import { createMemoryStores } from "../../../../src/store/memory.js";
import { waitUntil } from "../../../support/processes.js";

const TOKEN = "123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/**
 * A Bot API that answers every getUpdates at once with what `answer` gives, or never when
 * it gives nothing; `closed` counts requests whose client went away unanswered.
 */
async function impatientBotApi(answer: (call: number) => Update[] | undefined) {
  let calls = 0;
  let closed = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      calls += 1;
      const result = answer(calls);
      if (result === undefined) {
        response.on("close", () => {
          if (!response.writableEnded) closed += 1;
        });
        return;
      }
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ ok: true, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const apiRoot = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, apiRoot, calls: () => calls, closed: () => closed };
}

function textUpdate(updateId: number): Update {
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: 0,
      chat: { id: 1, type: "private", first_name: "A" },
      from: { id: 1, is_bot: false, first_name: "A" },
      text: "hi",
    },
  };
}

let server: Server | undefined;
let poller: UpdatePoller | undefined;

afterEach(async () => {
  await poller?.stop();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  poller = undefined;
  server = undefined;
});

function startPoller(apiRoot: string, handled: Update[]): UpdatePoller {
  const stores = createMemoryStores({ retentionMs: 60_000 });
  poller = new UpdatePoller({
    telegram: new Telegram(TOKEN, { apiRoot }),
    handleUpdate: async (update) => {
      handled.push(update);
    },
    leases: stores.leases,
    logger: silentLogger,
    pollTimeoutSeconds: 2,
  });
  poller.start();
  return poller;
}

describe("UpdatePoller", () => {
  it("waits a moment after an empty answer that came long before its timeout", async () => {
    const api = await impatientBotApi(() => []);
    server = api.server;
    startPoller(api.apiRoot, []);

    await sleep(1500);
    // One poll at once, one after the 1 s pause; without the pause, thousands.
    expect(api.calls()).toBeGreaterThanOrEqual(1);
    expect(api.calls()).toBeLessThanOrEqual(3);
  });

  it("asks again at once after an answer that brought updates", async () => {
    const api = await impatientBotApi((call) => [textUpdate(call)]);
    server = api.server;
    const handled: Update[] = [];
    startPoller(api.apiRoot, handled);

    await sleep(1500);
    expect(api.calls()).toBeGreaterThan(10);
    expect(handled.length).toBeGreaterThan(10);
  });

  it("ends the long poll in flight when stopped", async () => {
    const api = await impatientBotApi(() => undefined);
    server = api.server;
    const running = startPoller(api.apiRoot, []);
    await waitUntil(() => api.calls() === 1, "the first getUpdates");

    await running.stop();
    await waitUntil(() => api.closed() === 1, "the poll to be given up");
    expect(api.calls()).toBe(1);
  });
});
