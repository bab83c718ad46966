/**
 * Redis over TLS, with real redis-servers (and a sentinel) that speak it: the bot process
 * reaches a TLS-only port through `rediss://`, or through a sentinel with REDIS_TLS=on, and
 * trusts the test CA the way an operator would, with NODE_EXTRA_CA_CERTS. The certificates
 * in test/fixtures/tls/ (a CA and a server certificate for 127.0.0.1, valid 2000–2100) were
 * made with `openssl ca`; each server also keeps a plain port, for the test's own probes.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { payAndConfirm } from "../../support/flows.js";
import { PAYER_ID } from "../../support/harness.js";
import { freePort } from "../../support/net.js";
import { MainProcess, PrivateRedis, startBot } from "../../support/processes.js";
import { startWorld, type World } from "../../support/world.js";

const TLS_DIR = fileURLToPath(new URL("../../fixtures/tls/", import.meta.url));
const CA = join(TLS_DIR, "ca.pem");
const TLS_FILES = [
  ...["--tls-cert-file", join(TLS_DIR, "server.pem")],
  ...["--tls-key-file", join(TLS_DIR, "server-key.pem")],
  ...["--tls-ca-cert-file", CA],
  ...["--tls-auth-clients", "no"],
];

/** A redis-server with a TLS port besides its plain one; resolves with both. */
async function tlsRedis(): Promise<{ server: PrivateRedis; tlsPort: number }> {
  const tlsPort = await freePort();
  const server = await PrivateRedis.start({
    args: ["--tls-port", String(tlsPort), "--tls-replication", "yes", ...TLS_FILES],
  });
  return { server, tlsPort };
}

describe("Redis over TLS", () => {
  const servers: PrivateRedis[] = [];
  let world: World | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await world?.close();
    world = undefined;
    await Promise.all(servers.splice(0).map((server) => server.close()));
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function payOnce(running: World): Promise<void> {
    const payer = running.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const paid = running.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("Paid: 1,500 FCFA"),
      10_000,
    );
    await payAndConfirm(running.emulator, payer, "/pay 237670000001 1500");
    await paid;
  }

  it("pays through a rediss:// URL, and refuses a server whose certificate it cannot check", async () => {
    const { server, tlsPort } = await tlsRedis();
    servers.push(server);
    world = await startWorld({ redisUrl: server.url });
    const env = { ...world.env, REDIS_URL: `rediss://127.0.0.1:${tlsPort}` };

    const untrusting = new MainProcess(["start"], { ...env, LOG_LEVEL: "info" });
    const exit = await untrusting.waitForExit(30_000);
    expect(exit.code).toBe(1);
    expect(untrusting.stderr).toContain(`Redis at rediss://127.0.0.1:${tlsPort} is not reachable`);

    await startBot({ ...env, NODE_EXTRA_CA_CERTS: CA });
    await payOnce(world);
    // The payout is on this server: the plain port the test reads shares its data.
    expect(world.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
  }, 60_000);

  it("finds the primary through a sentinel over TLS (REDIS_TLS=on)", async () => {
    const { server, tlsPort } = await tlsRedis();
    servers.push(server);
    dir = mkdtempSync(join(tmpdir(), "payout-bot-tls-sentinel-"));
    const configFile = join(dir, "sentinel.conf");
    const sentinelTlsPort = await freePort();
    writeFileSync(
      configFile,
      [
        `sentinel monitor mymaster 127.0.0.1 ${tlsPort} 1`,
        `tls-port ${sentinelTlsPort}`,
        `tls-cert-file ${join(TLS_DIR, "server.pem")}`,
        `tls-key-file ${join(TLS_DIR, "server-key.pem")}`,
        `tls-ca-cert-file ${CA}`,
        "tls-auth-clients no",
        // The sentinel itself reaches the primary over TLS.
        "tls-replication yes",
        "",
      ].join("\n"),
    );
    servers.push(await PrivateRedis.start({ configFile, args: ["--sentinel"] }));
    world = await startWorld({ redisUrl: server.url });

    await startBot({
      ...world.env,
      REDIS_URL: "",
      REDIS_SENTINELS: `127.0.0.1:${sentinelTlsPort}`,
      REDIS_TLS: "on",
      NODE_EXTRA_CA_CERTS: CA,
    });
    await payOnce(world);
    expect(world.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
  }, 60_000);
});
