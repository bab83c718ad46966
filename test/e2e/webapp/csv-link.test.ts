/**
 * The Mini App's API end to end on real Redis: the Overview's new figures (today, failed
 * volume, the 30 days before), History's operator parameter, and the CSV's short-lived signed
 * link for Telegram's `downloadFile`: made with fresh init data, fetched without any header;
 * a forged, changed, expired link, or one whose person lost the right, is refused (403/410).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FILE_LINK_TTL_SECONDS, signFileLink } from "../../../src/http/webapp/file-links.js";
import type { Payout } from "../../../src/model/payout.js";
import { type MiniAppUser, tmaHeader } from "../../support/browser.js";
import {
  ADMIN_ID,
  type Harness,
  PAYER_ID,
  startHarness,
  VIEWER_ID,
} from "../../support/harness.js";
import { acceptedPayout } from "../../support/payouts.js";

const DAY_MS = 86_400_000;
const ADMIN: MiniAppUser = { id: ADMIN_ID, firstName: "Awa", languageCode: "en" };
const PAYER: MiniAppUser = { id: PAYER_ID, firstName: "Paul", languageCode: "en" };
const VIEWER: MiniAppUser = { id: VIEWER_ID, firstName: "Vera", languageCode: "en" };

let h: Harness;
let pageDir: string;

function base(): string {
  return h.app.http?.url ?? "http://x.invalid";
}

async function api(user: MiniAppUser, method: "GET" | "POST", path: string) {
  const response = await fetch(`${base()}/app/api/${path}`, {
    method,
    headers: {
      authorization: tmaHeader(h.emulator.token, user),
      "content-type": "application/json",
    },
    ...(method === "POST" ? { body: "{}" } : {}),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function settled(daysAgo: number, overrides: Partial<Payout>): Promise<Payout> {
  const settledAtMs = Date.now() - daysAgo * DAY_MS - 60_000;
  const payout = acceptedPayout(settledAtMs - 60_000, {
    initiatorId: PAYER_ID,
    chatId: PAYER_ID,
    updatedAtMs: settledAtMs,
    settledAtMs,
    ...overrides,
  });
  await h.app.stores.payouts.create(payout);
  return payout;
}

beforeAll(async () => {
  pageDir = mkdtempSync(join(tmpdir(), "csv-link-page-"));
  writeFileSync(join(pageDir, "index.html"), "<!doctype html><title>app</title>");
  h = await startHarness({ webAppDir: pageDir });
  await settled(0, { state: "success", amount: 10_000, paymentId: "pay-link-1" });
  await settled(2, { state: "failed", amount: 3_000, operator: "orange", phone: "237690000001" });
  await settled(40, { state: "success", amount: 5_000, paymentId: "pay-link-old" });
}, 60_000);

afterAll(async () => {
  await h?.close();
  rmSync(pageDir, { recursive: true, force: true });
});

describe("the Overview's API", () => {
  it("answers today, the failed volume and the 30 days before, beside the old fields", async () => {
    const { status, json } = await api(ADMIN, "GET", "overview");
    expect(status).toBe(200);
    expect(json).toMatchObject({
      paidXaf: 10_000,
      paidCount: 1,
      successRate: 0.5,
      failedXaf: 3_000,
      failedCount: 1,
      today: { paidXaf: 10_000, paidCount: 1 },
      previous: { paidXaf: 5_000, paidCount: 1, successRate: 1, failedXaf: 0, failedCount: 0 },
    });
    expect(json.days).toHaveLength(30);
  });
});

describe("History's operator and amount parameters", () => {
  it("filters by operator, alone or with a status, and by an exact amount", async () => {
    expect((await api(ADMIN, "GET", "history?amount=3000")).json.total).toBe(1);
    expect((await api(ADMIN, "GET", "history?amount=3000&status=paid")).json.total).toBe(0);
    expect((await api(ADMIN, "GET", "history?amount=5000&operator=mtn")).json.total).toBe(1);
    expect((await api(ADMIN, "GET", "history?amount=-5")).status).toBe(400);
    const orange = await api(ADMIN, "GET", "history?operator=orange");
    expect(orange.json.total).toBe(1);
    const mtnFailed = await api(ADMIN, "GET", "history?operator=mtn&status=failed");
    expect(mtnFailed.json.total).toBe(0);
    expect((await api(ADMIN, "GET", "history?operator=airtel")).status).toBe(400);
  });
});

describe("the CSV's signed link", () => {
  async function link(user: MiniAppUser, query = "status=paid") {
    const made = await api(user, "POST", `history/csv/link?${query}`);
    expect(made.status).toBe(200);
    return made.json as { path: string; name: string; expiresAtMs: number };
  }

  it("serves the filtered CSV without any header, for a few minutes, and audits it", async () => {
    const made = await link(ADMIN);
    expect(made.name).toBe("payouts-filtered.csv");
    expect(made.path).toMatch(/^\/app\/file\/history-csv\?/);
    expect(made.expiresAtMs - Date.now()).toBeLessThanOrEqual(FILE_LINK_TTL_SECONDS * 1000);
    expect(made.expiresAtMs - Date.now()).toBeGreaterThan((FILE_LINK_TTL_SECONDS - 10) * 1000);
    const response = await fetch(`${base()}${made.path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toContain("payouts-filtered.csv");
    const text = await response.text();
    expect(text).toContain("pay-link-1");
    expect(text).toContain("pay-link-old");
    expect(text).not.toContain("237690000001");
    const [entry] = await h.app.stores.audit.recent(1);
    expect(entry).toMatchObject({ action: "export", actorId: ADMIN_ID });
    expect(entry?.details).toMatchObject({ via: "mini_app", status: "paid" });
  });

  it("refuses a forged link, a changed query or person, and an expired one", async () => {
    const made = await link(VIEWER);
    const url = new URL(made.path, base());
    const status = async (change: (params: URLSearchParams) => void, path = url.pathname) => {
      const params = new URLSearchParams(url.searchParams);
      change(params);
      return (await fetch(`${base()}${path}?${params}`)).status;
    };
    expect(await status(() => {})).toBe(200);
    // Another person's link: the same link with the admin's id (who may see everyone's).
    expect(await status((params) => params.set("u", String(ADMIN_ID)))).toBe(403);
    expect(await status((params) => params.set("status", "failed"))).toBe(403);
    expect(await status((params) => params.delete("status"))).toBe(403);
    expect(
      await status((params) => params.set("exp", String(Number(params.get("exp")) + 3600))),
    ).toBe(403);
    expect(await status((params) => params.set("sig", "A".repeat(43)))).toBe(403);
    expect(await status((params) => params.delete("sig"))).toBe(403);
    expect(await status(() => {}, "/app/file/other.csv")).toBe(403);
    // Signed with another token: not ours.
    const foreign = signFileLink({
      botToken: "123:another-bot",
      name: "history-csv",
      query: new URLSearchParams("status=paid"),
      userId: VIEWER_ID,
      language: "en",
      nowMs: Date.now(),
    });
    expect((await fetch(`${base()}${foreign.path}`)).status).toBe(403);
    // Ours, but made six minutes ago: gone.
    const old = signFileLink({
      botToken: h.emulator.token,
      name: "history-csv",
      query: new URLSearchParams("status=paid"),
      userId: VIEWER_ID,
      language: "en",
      nowMs: Date.now() - (FILE_LINK_TTL_SECONDS + 60) * 1000,
    });
    const gone = await fetch(`${base()}${old.path}`);
    expect(gone.status).toBe(410);
    expect(await gone.json()).toEqual({ error: "link_expired" });
  });

  it("is refused to a role without export, and to someone no longer staff", async () => {
    expect((await api(PAYER, "POST", "history/csv/link")).status).toBe(403);
    // A link signed for a payer (as if made before a role change) is refused when used.
    const forPayer = signFileLink({
      botToken: h.emulator.token,
      name: "history-csv",
      query: new URLSearchParams(),
      userId: PAYER_ID,
      language: "en",
      nowMs: Date.now(),
    });
    expect((await fetch(`${base()}${forPayer.path}`)).status).toBe(403);
    const forStranger = signFileLink({
      botToken: h.emulator.token,
      name: "history-csv",
      query: new URLSearchParams(),
      userId: 999_999,
      language: "en",
      nowMs: Date.now(),
    });
    expect((await fetch(`${base()}${forStranger.path}`)).status).toBe(403);
  });

  it("answers 404 for an empty view instead of a link", async () => {
    const empty = await api(ADMIN, "POST", "history/csv/link?q=nobody-matches-this");
    expect(empty.status).toBe(404);
  });
});
