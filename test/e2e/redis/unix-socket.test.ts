/**
 * Redis over a Unix socket, for a bot that shares its host with Redis: `REDIS_URL` as
 * `unix:///path/redis.sock?db=N` (or `redis+unix://`) carries a whole /pay flow, and its
 * keys land in that database of that server.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/index.js";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { payAndConfirm } from "../../support/flows.js";
import { PAYER_ID, startHarness } from "../../support/harness.js";
import { PrivateRedis } from "../../support/processes.js";

const socketDir = mkdtempSync(join(tmpdir(), "payout-bot-socket-"));
const socket = join(socketDir, "redis.sock");
let server: PrivateRedis;

beforeAll(async () => {
  server = await PrivateRedis.start({ args: ["--unixsocket", socket, "--unixsocketperm", "700"] });
});

afterAll(async () => {
  await server.close();
  rmSync(socketDir, { recursive: true, force: true });
});

describe("REDIS_URL as a Unix socket", () => {
  it.each(["unix", "redis+unix"])(
    "pays through %s:// and keeps the keys in its database",
    async (scheme) => {
      const h = await startHarness({ env: { REDIS_URL: `${scheme}://${socket}?db=3` } });
      try {
        const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
        const pending = await payAndConfirm(h.emulator, payer, "/pay 670000001 5000");
        expect(plainText(pending)).toContain("Pending");
        expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
        const direct = new Redis({ path: socket, db: 3 });
        try {
          expect((await direct.keys(`${h.prefix}*`)).length).toBeGreaterThan(0);
          await direct.select(0);
          expect(await direct.keys(`${h.prefix}*`)).toEqual([]);
        } finally {
          direct.disconnect();
        }
      } finally {
        await h.close();
      }
    },
  );

  it("refuses a URL of another kind, naming both forms", () => {
    expect(() => loadConfig({ REDIS_URL: "tcp://127.0.0.1:6379" }, "demo")).toThrow(
      /redis:\/\/ or rediss:\/\/ URL.*unix:\/\/\/run\/redis\/redis\.sock/,
    );
  });
});
