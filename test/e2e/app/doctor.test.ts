/**
 * `npm run doctor` run as an operator runs it, as a child process, against the local
 * Payment API sandbox, the Bot API emulator and a real Redis: all good is exit 0; each
 * broken setup is exit 1 with its ✗ line and a fix; a configuration that does not parse is
 * exit 2 with every problem listed.
 */
import { generateKeyPairSync } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { TelegramEmulator } from "../../../src/dev/telegram-emulator/index.js";
import type { SandboxHandle } from "../../../src/sandbox/index.js";
import { RedisCluster } from "../../support/cluster.js";
import { harnessEnv, PAYER_ID, startServices } from "../../support/harness.js";
import { PipedProcess } from "../../support/piped-process.js";
import { PrivateRedis, waitUntil } from "../../support/processes.js";
import { testPrefix } from "../../support/redis.js";
import { SentinelCluster } from "../../support/sentinel.js";

let services: { sandbox: SandboxHandle; emulator: TelegramEmulator };
let servers: Server[] = [];
let privateRedis: PrivateRedis | undefined;

beforeEach(async () => {
  services = await startServices();
});

afterEach(async () => {
  await services.emulator.close();
  await services.sandbox.close();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  servers = [];
  await privateRedis?.close();
  privateRedis = undefined;
});

/** A server on loopback answering every request with `status`; its base URL. */
async function answering(status: number): Promise<string> {
  const server = createServer((_request, response) => {
    response.writeHead(status, { "content-type": "text/html" });
    response.end(status === 200 ? "<!doctype html><title>Mini App</title>" : "not here");
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The environment of a bot that would start: sandbox, emulator, test Redis, a Mini App page. */
async function goodEnv(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const page = await answering(200);
  return harnessEnv(services.sandbox, services.emulator, testPrefix("doctor"), {
    WEBAPP_URL: `${page}/app/`,
    ...extra,
  });
}

/** Runs `main.ts doctor` with `env`; its exit code and what it printed. */
async function doctor(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const run = new PipedProcess(["doctor"], env);
  const { code } = await run.exited;
  expect(run.stderr).toBe("");
  return { code, output: run.output };
}

/** The one output line of check `name`. */
function lineOf(output: string, name: string): string {
  const lines = output.split("\n").filter((line) => line.slice(2, 24).trimEnd() === name);
  expect(lines, output).toHaveLength(1);
  return lines[0] ?? "";
}

describe("npm run doctor", { timeout: 60_000 }, () => {
  it("passes a setup where everything holds, warning only for what is optional", async () => {
    const { code, output } = await doctor(await goodEnv());

    expect(output).not.toMatch(/^✗/m);
    for (const name of [
      "configuration",
      "telegram bot",
      "payment api",
      "payment signatures",
      "payment operators",
      "clock",
      "redis",
      "redis topology",
      "redis memory policy",
      "mini app url",
      "time zone",
    ]) {
      expect(lineOf(output, name), output).toMatch(/^✓ /);
    }
    expect(lineOf(output, "events url")).toMatch(/^! events url +EVENTS_URL unset/);
    expect(lineOf(output, "payment api")).toContain("key accepted");
    expect(lineOf(output, "redis memory policy")).toContain("noeviction");
    expect(output).toMatch(/\d+ checks: \d+ passed, \d+ warnings?, 0 failed \(ready\)\n$/);
    // No secret is printed.
    expect(output).not.toContain(services.sandbox.apiKey);
    expect(output).not.toContain(services.emulator.token.split(":")[1]);
    expect(code).toBe(0);
  });

  it("fails on a bot token Telegram refuses, saying to copy it again", async () => {
    const { code, output } = await doctor(
      await goodEnv({ TELEGRAM_BOT_TOKEN: "123456789:AAHwrongwrongwrongwrongwrongwrong00" }),
    );

    expect(lineOf(output, "telegram bot")).toMatch(
      /^✗ telegram bot +Telegram refused TELEGRAM_BOT_TOKEN \(401 Unauthorized\) on getMe fix: Copy the token from @BotFather again\.$/,
    );
    expect(output).not.toContain("AAHwrongwrong");
    expect(code).toBe(1);
  });

  it("fails on a Payment API key the API refuses", async () => {
    const { code, output } = await doctor(await goodEnv({ PAYMENT_API_KEY: "not-our-key" }));

    expect(lineOf(output, "payment api")).toMatch(
      /^✗ payment api +The Payment API refused PAYMENT_API_KEY \(401\) on GET \/availability fix: Check the key in the merchant portal\.$/,
    );
    expect(output).not.toContain("not-our-key");
    expect(code).toBe(1);
  });

  it("fails on a signature key that is not the API's", async () => {
    const { publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const { code, output } = await doctor(
      await goodEnv({
        PAYMENT_SIGNATURE_PUBLIC_KEY: publicKey.export({ type: "spki", format: "pem" }).toString(),
      }),
    );

    expect(lineOf(output, "payment signatures")).toMatch(
      /^✗ payment signatures +the API answered GET \/availability with a signature PAYMENT_SIGNATURE_PUBLIC_KEY does not verify fix: Set PAYMENT_SIGNATURE_PUBLIC_KEY/,
    );
    expect(code).toBe(1);
  });

  it("fails on a request signing key whose public half is not the one the API holds", async () => {
    const held = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const ours = generateKeyPairSync("rsa", { modulusLength: 2048 });
    await services.sandbox.close();
    await services.emulator.close();
    services = await startServices({
      requestVerifyKeyPem: held.publicKey.export({ type: "spki", format: "pem" }).toString(),
    });
    const { code, output } = await doctor(
      await goodEnv({
        PAYMENT_REQUEST_SIGNING_KEY: ours.privateKey
          .export({ type: "pkcs8", format: "pem" })
          .toString(),
      }),
    );

    expect(lineOf(output, "payment api")).toMatch(
      /^✗ payment api +The Payment API refused GET \/availability \(401: unauthorized: bad request signature\) fix: Check PAYMENT_API_KEY, and that the public half of PAYMENT_REQUEST_SIGNING_KEY/,
    );
    expect(output).not.toContain("PRIVATE KEY");
    expect(code).toBe(1);
  });

  it("fails on a Redis that evicts keys (maxmemory-policy allkeys-lru)", async () => {
    privateRedis = await PrivateRedis.start({ args: ["--maxmemory-policy", "allkeys-lru"] });
    const { code, output } = await doctor(await goodEnv({ REDIS_URL: privateRedis.url }));

    expect(lineOf(output, "redis")).toMatch(/^✓ redis /);
    expect(lineOf(output, "redis memory policy")).toMatch(
      /^✗ redis memory policy +allkeys-lru: .* fix: Set maxmemory-policy noeviction/,
    );
    expect(code).toBe(1);
  });

  it("fails on a Telegram webhook URL that answers 404", async () => {
    const proxy = await answering(404);
    const { code, output } = await doctor(
      await goodEnv({
        TELEGRAM_WEBHOOK_URL: `${proxy}/telegram`,
        TELEGRAM_WEBHOOK_SECRET: "s3cret-token",
      }),
    );

    expect(lineOf(output, "webhook url")).toMatch(
      /^✗ webhook url +http:\/\/127\.0\.0\.1:\d+\/telegram answered 404 to a GET fix: Route TELEGRAM_WEBHOOK_URL's path/,
    );
    expect(output).not.toContain("s3cret-token");
    expect(code).toBe(1);
  });

  it("shows Telegram's last failed delivery to the webhook, beside the URL's own 404", async () => {
    const proxy = await answering(404);
    const url = `${proxy}/telegram`;
    const { emulator } = services;
    const call = async (method: string, body: object) => {
      const response = await fetch(`${emulator.apiRoot}/bot${emulator.token}/${method}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return z.looseObject({ result: z.unknown() }).parse(await response.json()).result;
    };
    // The bot set its webhook earlier; since then a person wrote, and Telegram met a 404.
    await call("setWebhook", { url, secret_token: "s3cret-token" });
    await emulator.user({ id: PAYER_ID }).sendText("hello");
    await waitUntil(
      async () =>
        z
          .looseObject({ last_error_message: z.string() })
          .safeParse(await call("getWebhookInfo", {})).success,
      "a failed webhook delivery",
    );

    const { code, output } = await doctor(
      await goodEnv({ TELEGRAM_WEBHOOK_URL: url, TELEGRAM_WEBHOOK_SECRET: "s3cret-token" }),
    );

    expect(lineOf(output, "telegram webhook")).toMatch(
      /^! telegram webhook +last delivery failed \d+ s ago: Wrong response from the webhook: 404 Not Found; \d+ updates? waiting fix: Make TELEGRAM_WEBHOOK_URL reach the bot/,
    );
    expect(lineOf(output, "webhook url")).toMatch(/^✗ webhook url .* answered 404/);
    expect(code).toBe(1);
  });

  it("fails on a Mini App URL that answers 404", async () => {
    const proxy = await answering(404);
    const { code, output } = await doctor(await goodEnv({ WEBAPP_URL: `${proxy}/app/` }));

    expect(lineOf(output, "mini app url")).toMatch(
      /^✗ mini app url +http:\/\/127\.0\.0\.1:\d+\/app\/ answers 404 fix: /,
    );
    expect(code).toBe(1);
  });

  it("fails on an events URL with no receiver (404), and passes one that refuses an unsigned event", async () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    const nobody = await answering(404);
    const missing = await doctor(
      await goodEnv({ EVENTS_URL: `${nobody}/hooks`, EVENTS_SECRET: secret }),
    );
    expect(lineOf(missing.output, "events url")).toMatch(
      /^✗ events url +http:\/\/127\.0\.0\.1:\d+\/hooks answered 404 to an unsigned test POST fix: /,
    );
    expect(missing.code).toBe(1);

    const receiver = await answering(401);
    const present = await doctor(
      await goodEnv({ EVENTS_URL: `${receiver}/hooks`, EVENTS_SECRET: secret }),
    );
    expect(lineOf(present.output, "events url")).toMatch(
      /^✓ events url .*refused an unsigned test POST \(401\)/,
    );
    expect(present.output).not.toContain(secret.slice(6));
    expect(present.code).toBe(0);
  });

  it("fails on a Redis that does not answer, and does not hang", async () => {
    const closed = await answering(200);
    const port = new URL(closed).port;
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const { code, output } = await doctor(
      await goodEnv({ REDIS_URL: `redis://127.0.0.1:${port}` }),
    );

    expect(lineOf(output, "redis")).toMatch(
      /^✗ redis +redis:\/\/127\.0\.0\.1:\d+ is not reachable .* fix: /,
    );
    expect(code).toBe(1);
  });

  it("fails on a REDIS_URL that names a replica, which refuses writes", async () => {
    privateRedis = await PrivateRedis.start();
    const replica = await PrivateRedis.start({
      args: ["--replicaof", "127.0.0.1", String(privateRedis.port)],
    });
    try {
      const { code, output } = await doctor(await goodEnv({ REDIS_URL: replica.url }));

      expect(lineOf(output, "redis topology")).toMatch(
        /^✗ redis topology +the server is a slave, which refuses writes fix: Point REDIS_URL at the primary/,
      );
      expect(code).toBe(1);
    } finally {
      await replica.close();
    }
  });

  it("names the primary Sentinel found, with its replicas", { timeout: 120_000 }, async () => {
    const cluster = await SentinelCluster.start();
    try {
      const { code, output } = await doctor(await goodEnv({ REDIS_URL: "", ...cluster.env() }));

      expect(lineOf(output, "redis")).toMatch(/^✓ redis +sentinel mymaster via /);
      expect(lineOf(output, "redis topology")).toMatch(
        new RegExp(
          `^✓ redis topology +Sentinel "mymaster" names the primary 127\\.0\\.0\\.1:${cluster.primary.port}, 2 replicas$`,
        ),
      );
      expect(code, output).toBe(0);
    } finally {
      await cluster.close();
    }
  });

  it("checks a Redis Cluster: state ok, and every primary's memory policy", {
    timeout: 120_000,
  }, async () => {
    const cluster = await RedisCluster.start();
    try {
      const env = await goodEnv({ REDIS_URL: "", ...cluster.env() });
      const good = await doctor(env);
      expect(lineOf(good.output, "redis")).toMatch(/^✓ redis +cluster via 127\.0\.0\.1:/);
      expect(lineOf(good.output, "redis topology")).toMatch(
        /^✓ redis topology +Redis Cluster, 3 primaries \(127\.0\.0\.1:\d+ with 1 replicas, /,
      );
      expect(lineOf(good.output, "redis memory policy")).toMatch(
        /^✓ redis memory policy +noeviction/,
      );
      expect(good.code, good.output).toBe(0);

      // One primary that evicts keys fails the check, named.
      const lines = await cluster.nodeLines();
      const primary = lines.find((line) => line.primary && !line.failed);
      const node = cluster.nodes.find((candidate) => candidate.port === primary?.port);
      if (!node) throw new Error("no primary");
      const { Redis } = await import("ioredis");
      const direct = new Redis(node.url);
      await direct.config("SET", "maxmemory-policy", "allkeys-lru");
      direct.disconnect();
      const bad = await doctor(env);
      expect(lineOf(bad.output, "redis memory policy")).toMatch(
        new RegExp(`^✗ redis memory policy +127\\.0\\.0\\.1:${node.port}: allkeys-lru`),
      );
      expect(bad.code).toBe(1);
    } finally {
      await cluster.close();
    }
  });

  it("fails on a clock more than a minute from the Payment API's Date", async () => {
    // A Payment API whose clock is two minutes behind ours: ours is two minutes ahead.
    const behind = createServer((_request, response) => {
      response.sendDate = false;
      response.writeHead(200, {
        "content-type": "application/json",
        date: new Date(Date.now() - 120_000).toUTCString(),
      });
      response.end(
        JSON.stringify([
          { operator: "mtn", operation: { type: "disbursement", status: "OPERATIONAL" } },
        ]),
      );
    });
    servers.push(behind);
    await new Promise<void>((resolve) => behind.listen(0, "127.0.0.1", resolve));
    const { code, output } = await doctor(
      await goodEnv({
        PAYMENT_API_BASE_URL: `http://127.0.0.1:${(behind.address() as AddressInfo).port}`,
        PAYMENT_SIGNATURE_PUBLIC_KEY: "",
      }),
    );

    expect(lineOf(output, "payment api")).toMatch(/^✓ payment api +key accepted/);
    expect(lineOf(output, "clock")).toMatch(
      /^✗ clock +1\d\d\.\d s ahead of the Payment API's Date fix: Run NTP/,
    );
    expect(code).toBe(1);
  });

  it("exits 2 on a configuration that does not parse, listing every problem", async () => {
    const env = await goodEnv({ PAYMENT_ENV: "live", TIME_ZONE: "Mars/Olympus" });
    delete env.TELEGRAM_BOT_TOKEN;
    const { code, output } = await doctor(env);

    expect(output).toMatch(/^✗ configuration +3 problems; nothing else was checked/);
    expect(output).toContain("PAYMENT_ENV");
    expect(output).toContain("TIME_ZONE");
    expect(output).toContain("TELEGRAM_BOT_TOKEN: required");
    expect(output).not.toMatch(/telegram bot|payment api/);
    expect(code).toBe(2);
  });
});
