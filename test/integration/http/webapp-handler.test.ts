/**
 * The Mini App's API on a real HTTP server: identity first (401), then the person's rate
 * limit (429), the route (404, 405), the role (403), then the route itself; every answer
 * with the strict headers and no cookie.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sign } from "@telegram-apps/init-data-node";
import { request } from "undici";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type HttpServerHandle, startHttpServer } from "../../../src/http/server.js";
import { createWebAppHandler } from "../../../src/http/webapp/handler.js";
import type { WebAppRoute } from "../../../src/http/webapp/routes.js";
import { loadStaticFiles } from "../../../src/http/webapp/static.js";
import { silentLogger } from "../../../src/logger.js";
import type { Role } from "../../../src/model/roles.js";

const TOKEN = "42:handler-test-token-abcdefghijklmnop";

/** A page as `npm run build` writes it: the HTML shell, one script, one stylesheet. */
const PAGE_DIR = mkdtempSync(join(tmpdir(), "webapp-page-"));
const SCRIPT = `console.log(${JSON.stringify("x".repeat(4000))});`;
writeFileSync(
  join(PAGE_DIR, "index.html"),
  '<!doctype html><link rel="stylesheet" href="app.css" /><script defer src="app.js"></script>',
);
writeFileSync(join(PAGE_DIR, "app.js"), SCRIPT);
writeFileSync(join(PAGE_DIR, "app.css"), "body{margin:0}");
afterAll(() => rmSync(PAGE_DIR, { recursive: true, force: true }));
const ROLES: Record<number, Role> = { 1: "admin", 2: "payer", 3: "viewer" };

let server: HttpServerHandle | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(allowed: (userId: number) => boolean = () => true) {
  const posted: unknown[] = [];
  const routes: WebAppRoute[] = [
    {
      method: "GET",
      path: "things/:id",
      capability: "read",
      handle: async ({ params }) => ({ status: 200, json: { id: params.id } }),
    },
    {
      method: "POST",
      path: "things/:id/approve",
      capability: "approve",
      handle: async ({ body }) => {
        posted.push(body);
        return { status: 200, json: { ok: true } };
      },
    },
  ];
  const webApp = createWebAppHandler({
    auth: {
      botToken: TOKEN,
      maxAgeSeconds: 3600,
      now: Date.now,
      staff: { roleOf: async (id) => ROLES[id] ?? null, savedLocale: async () => null },
    },
    routes,
    files: loadStaticFiles(PAGE_DIR),
    takeRequest: async (userId) => allowed(userId),
    logger: silentLogger,
  });
  server = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger,
    health: async () => true,
    webApp,
  });
  return { url: server.url, posted };
}

function as(userId: number): string {
  return `tma ${sign({ user: { id: userId, first_name: "U" } }, TOKEN, new Date())}`;
}

describe("the Mini App's API", () => {
  it("answers a staff member's request, with strict headers and no cookie", async () => {
    const { url } = await start();
    const response = await fetch(`${url}/app/api/things/a%2Fb`, {
      headers: { authorization: as(2) },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: "a/b" });
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  it("refuses 401 before anything else, and 403 a stranger", async () => {
    const { url } = await start();
    const none = await fetch(`${url}/app/api/nowhere`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ error: "unauthorized", reason: "missing" });
    const stranger = await fetch(`${url}/app/api/things/x`, { headers: { authorization: as(9) } });
    expect(stranger.status).toBe(403);
  });

  it("refuses 403 a role that may not, and never runs the route", async () => {
    const { url, posted } = await start();
    for (const userId of [2, 3]) {
      const response = await fetch(`${url}/app/api/things/x/approve`, {
        method: "POST",
        headers: { authorization: as(userId) },
        body: "{}",
      });
      expect(response.status).toBe(403);
    }
    expect(posted).toEqual([]);
    const admin = await fetch(`${url}/app/api/things/x/approve`, {
      method: "POST",
      headers: { authorization: as(1) },
      body: '{"a":1}',
    });
    expect(admin.status).toBe(200);
    expect(posted).toEqual([{ a: 1 }]);
  });

  it("answers 404 for no route, 405 for the wrong method, 400 for a body not JSON", async () => {
    const { url } = await start();
    const headers = { authorization: as(1) };
    expect((await fetch(`${url}/app/api/nothing`, { headers })).status).toBe(404);
    expect(
      (await fetch(`${url}/app/api/things/x`, { method: "POST", headers, body: "{}" })).status,
    ).toBe(405);
    const bad = await fetch(`${url}/app/api/things/x/approve`, {
      method: "POST",
      headers,
      body: "{",
    });
    expect(bad.status).toBe(400);
  });

  it("answers 429 once the person is over their limit", async () => {
    let taken = 0;
    const { url } = await start(() => {
      taken += 1;
      return taken <= 2;
    });
    const headers = { authorization: as(1) };
    const statuses = [];
    for (let i = 0; i < 3; i += 1)
      statuses.push((await fetch(`${url}/app/api/things/x`, { headers })).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it("serves the page's known files only", async () => {
    const { url } = await start();
    expect((await fetch(`${url}/app/`)).status).toBe(200);
    expect((await fetch(`${url}/app/../../etc/passwd`)).status).toBe(404);
    expect((await fetch(`${url}/app/secret.txt`)).status).toBe(404);
    const redirect = await fetch(`${url}/app`, { redirect: "manual" });
    expect(redirect.status).toBe(308);
  });

  it("serves the page compressed as the client takes it, with hashed names cached for a year", async () => {
    const { url } = await start();
    const get = (path: string, acceptEncoding?: string) =>
      request(`${url}${path}`, {
        headers: acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding },
      });
    const page = await get("/app/", "gzip, deflate, br");
    expect(page.headers["content-encoding"]).toBe("br");
    expect(page.headers["cache-control"]).toBe("no-cache");
    expect(page.headers.vary).toBe("Accept-Encoding");
    const { brotliDecompressSync, gunzipSync } = await import("node:zlib");
    const html = brotliDecompressSync(Buffer.from(await page.body.arrayBuffer())).toString();
    const script = /src="(app\.[0-9a-f]{10}\.js)"/.exec(html)?.[1] ?? "";
    expect(script).not.toBe("");
    expect(html).toMatch(/href="app\.[0-9a-f]{10}\.css"/);

    const gzipped = await get(`/app/${script}`, "gzip");
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(gzipped.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    const zipped = Buffer.from(await gzipped.body.arrayBuffer());
    expect(gunzipSync(zipped).toString()).toBe(SCRIPT);
    expect(zipped.length).toBeLessThan(SCRIPT.length / 10);

    const plain = await get(`/app/${script}`);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(await plain.body.text()).toBe(SCRIPT);
    const refused = await get(`/app/${script}`, "br;q=0, gzip;q=0");
    expect(refused.headers["content-encoding"]).toBeUndefined();
    await refused.body.dump();
    // The API is never cached.
    const api = await get("/app/api/things/1");
    expect(api.headers["cache-control"]).toBe("no-store");
    await api.body.dump();
  });
});
