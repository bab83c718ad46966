/**
 * The Mini App in a real browser (Chromium through playwright-core), served by the bot's own
 * HTTP server, against real Redis and the sandbox over HTTP: the Overview's bars, History's
 * search and CSV, an approval from the page (one POST), what a viewer and a forged or stale
 * sign-in get, and a screenshot of each page in French, dark, at 360 px.
 */
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DARK_THEME, plainText } from "../../src/dev/telegram-emulator/index.js";
import type { Payout } from "../../src/model/payout.js";
import { buildWebPage } from "../../web/build.js";
import {
  ARTIFACTS_DIR,
  launchBrowser,
  type MiniAppUser,
  miniAppUrl,
  tmaHeader,
} from "../support/browser.js";
import { isPromptIn, isPromptReading, sendAndWait, showPrompt } from "../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  type Harness,
  PAYER_ID,
  STRANGER_ID,
  startHarness,
  VIEWER_ID,
} from "../support/harness.js";
import { acceptedPayout } from "../support/payouts.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;
const DAY_MS = 86_400_000;

const ADMIN: MiniAppUser = { id: ADMIN_ID, firstName: "Awa", languageCode: "en" };
const VIEWER: MiniAppUser = { id: VIEWER_ID, firstName: "Vera", languageCode: "en" };

let h: Harness;
let browser: Browser;
const seeded: Payout[] = [];

function base(): string {
  const http = h.app.http;
  if (!http) throw new Error("the app has no HTTP server");
  return http.url;
}

async function open(
  user: MiniAppUser,
  options: Parameters<typeof miniAppUrl>[3] & { width?: number } = {},
): Promise<Page> {
  const context = await browser.newContext({
    locale: user.languageCode === "fr" ? "fr-FR" : "en-GB",
    viewport: { width: options.width ?? 390, height: 780 },
    acceptDownloads: true,
    deviceScaleFactor: 2,
  });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  await page.goto(miniAppUrl(base(), h.emulator.token, user, options));
  return page;
}

async function seed(): Promise<void> {
  const now = Date.now();
  const rows: Array<Partial<Payout>> = [
    {
      state: "success",
      operator: "mtn",
      phone: "237670000011",
      amount: 25_000,
      recipientName: "Jean-Paul Mbarga",
      fee: 250,
      createdAtMs: now - 2 * DAY_MS,
      paymentId: "pay-web-0001",
    },
    {
      state: "success",
      operator: "orange",
      phone: "237690000022",
      amount: 40_000,
      recipientName: "Aïcha Bello",
      fee: 400,
      createdAtMs: now - 5 * DAY_MS,
      paymentId: "pay-web-0002",
    },
    {
      state: "success",
      operator: "mtn",
      phone: "237670000033",
      amount: 12_500,
      recipientName: "Marie Ngo",
      fee: 125,
      createdAtMs: now - 9 * DAY_MS,
      paymentId: "pay-web-0003",
    },
    {
      state: "failed",
      operator: "orange",
      phone: "237690000044",
      amount: 8_000,
      recipientName: "Samuel Eto",
      createdAtMs: now - 3 * DAY_MS,
      paymentId: "pay-web-0004",
    },
    {
      state: "success",
      operator: "orange",
      phone: "237690000055",
      amount: 60_000,
      recipientName: "Chantal Biya",
      fee: 600,
      createdAtMs: now - 1 * DAY_MS,
      paymentId: "pay-web-0005",
    },
    // Made now, so its audit entry (written with the store's clock) is in its lifetime.
    {
      state: "expired",
      operator: "mtn",
      phone: "237670000066",
      amount: 7_000,
      recipientName: "Ruth Ndongo",
      createdAtMs: now,
      paymentId: "pay-web-0006",
    },
  ];
  for (const overrides of rows) {
    const createdAtMs = overrides.createdAtMs ?? now;
    const payout = acceptedPayout(createdAtMs, {
      ...overrides,
      initiatorId: PAYER_ID,
      chatId: PAYER_ID,
      updatedAtMs: createdAtMs + 60_000,
      settledAtMs: createdAtMs + 60_000,
    });
    await h.app.stores.payouts.create(payout);
    seeded.push(payout);
  }
}

beforeAll(async () => {
  const webAppDir = await buildWebPage(join(tmpdir(), `payout-webapp-test-${process.pid}`));
  h = await startHarness({ webAppDir, env: { APPROVAL_THRESHOLD_XAF: "100000" } });
  browser = await launchBrowser();
  // The staff write to the bot once, so it knows their names.
  for (const [id, firstName] of [
    [ADMIN_ID, "Awa"],
    [PAYER_ID, "Paul"],
    [VIEWER_ID, "Vera"],
    [APPROVER_ID, "Ama"],
  ] as const) {
    await sendAndWait(h.emulator, h.emulator.user({ id, firstName, languageCode: "en" }), "/help");
  }
  await seed();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe("the Mini App in a browser", () => {
  it("serves the page with a strict policy and no cookies", async () => {
    const response = await fetch(`${base()}/app/`);
    expect(response.status).toBe(200);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toContain("frame-ancestors https://web.telegram.org https://*.telegram.org");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("set-cookie")).toBeNull();
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const me = await fetch(`${base()}/app/api/me`, {
      headers: { authorization: tmaHeader(h.emulator.token, ADMIN) },
    });
    expect(await me.json()).toEqual({ id: ADMIN_ID, role: "admin", name: "Awa", language: "en" });
    expect(me.headers.get("set-cookie")).toBeNull();
  });

  it("shows the Overview's bars for the seeded payouts", async () => {
    const page = await open(ADMIN);
    await page.getByRole("tab", { name: "Overview" }).waitFor();
    const bars = page.locator("[data-testid=bar]");
    await bars.first().waitFor();
    // Four days with paid payouts: one bar each.
    expect(await bars.count()).toBe(4);
    const label = await bars.first().getAttribute("aria-label");
    expect(label).toMatch(/MTN|Orange/);
    // A tap reads the day below the chart (a phone cannot hover); the scale has amounts.
    await bars.first().click();
    expect(await page.getByTestId("day-readout").innerText()).toBe(label);
    expect(await page.locator(".chart .axis").allTextContents()).toEqual(
      expect.arrayContaining(["0", "50K"]),
    );
    const text = await page.locator(".stats").innerText();
    expect(text).toContain("137,500 FCFA");
    expect(text).toContain("80%");
    await page.context().close();
  });

  it("finds a payout by number and by payment id, and shows its audit trail", async () => {
    const page = await open(ADMIN);
    await page.getByRole("tab", { name: "History" }).click();
    // The rows under their day's title: the seeded payouts span several days.
    const days = page.getByTestId("history-day");
    await days.first().waitFor();
    expect(await days.count()).toBeGreaterThan(3);
    const titles = await page.locator(".day-title").allInnerTexts();
    expect(new Set(titles).size).toBe(titles.length);
    const search = page.getByRole("searchbox");
    // The results are replaced at once: once the row shows, the list is the answer.
    const onlyRow = async (name: string) => {
      const rows = page.locator("[data-testid=history-row]");
      await rows.filter({ hasText: name }).waitFor();
      expect(await rows.count()).toBe(1);
    };
    await search.fill("690000022");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await onlyRow("Aïcha Bello");

    await search.fill("pay-web-0006");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await onlyRow("Ruth Ndongo");
    await page.locator("[data-testid=history-row]").click();
    const detail = page.locator("[data-testid=payout-detail]");
    await detail.waitFor();
    expect(await detail.innerText()).toContain("pay-web-0006");
    expect(await page.locator("[data-testid=audit-trail]").innerText()).toContain("Prompt shown");
    await page.context().close();
  });

  it("exports the filtered view as CSV with /export's columns, and audits it", async () => {
    const page = await open(ADMIN);
    await page.getByRole("tab", { name: "History" }).click();
    // The filters are chips: one opens its choices, a choice closes them.
    await page.locator("[data-chip=status]").click();
    await page.getByRole("button", { name: "Paid", exact: true }).click();
    await page.locator("[data-chip=kind]").click();
    await page.getByRole("button", { name: "Payout", exact: true }).click();
    await page.getByTestId("chip-kind").waitFor();
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export CSV" }).click();
    const file = await download;
    const path = await file.path();
    const text = (await readFile(path, "utf8")).replace(/^\uFEFF/, "");
    const lines = text.trim().split("\r\n");
    expect(lines[0]).toBe(
      "created,kind,initiator,approver,recipient name,number,operator,amount,fee,status,payment id,note,settled at,schedule",
    );
    const paid = seeded.filter((payout) => payout.state === "success");
    expect(lines).toHaveLength(1 + paid.length);
    for (const payout of paid) expect(text).toContain(payout.paymentId ?? "");
    expect(text).not.toContain("pay-web-0004");
    const [entry] = await h.app.stores.audit.recent(1);
    expect(entry).toMatchObject({ action: "export", actorId: ADMIN_ID });
    expect(entry?.details).toMatchObject({ via: "mini_app", status: "paid", rows: paid.length });
    await page.context().close();
  });

  it("lets an admin approve a waiting payout in the page: one POST to the API", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 670000077 150000");
    const waiting = h.emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
    await payer.pressButton(prompt, 0);
    await waiting;
    const before = h.sandbox.countRequests(DISBURSE);

    const page = await open(ADMIN);
    await page.getByRole("tab", { name: "Approvals" }).click();
    const card = page.locator("[data-testid=approval]");
    await card.waitFor();
    const approve = card.getByRole("button", { name: /^Approve 150,000 FCFA/ });
    // A double tap: the second press finds the button disabled.
    await approve.dblclick({ force: true }).catch(() => undefined);
    await expect
      .poll(() => card.locator("[role=status]").innerText(), { timeout: 10_000 })
      .toMatch(/Approved and sent/);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(before + 1);
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 1 });
    expect(items[0]).toMatchObject({ amount: 150_000, approvedBy: ADMIN_ID });
    expect(["pending", "success"]).toContain(items[0]?.state);
    // Deciding again changes nothing and sends nothing.
    const again = await fetch(`${base()}/app/api/approvals/${items[0]?.id}/approve`, {
      method: "POST",
      headers: {
        authorization: tmaHeader(h.emulator.token, ADMIN),
        "content-type": "application/json",
      },
      body: "{}",
    });
    expect(again.status).toBe(409);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(before + 1);
    await page.context().close();
  });

  it("shows a viewer no Approve button, and answers a forged approval 403", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 670000088 120000");
    const waiting = h.emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
    await payer.pressButton(prompt, 0);
    await waiting;
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 1 });
    const id = items[0]?.id ?? "";

    const page = await open(VIEWER);
    await page.getByRole("tab", { name: "History" }).waitFor();
    expect(await page.getByRole("tab", { name: "Approvals" }).count()).toBe(0);
    expect(await page.locator("[data-action=approve]").count()).toBe(0);
    const before = h.sandbox.countRequests(DISBURSE);
    const forged = await page.evaluate(
      async ([url, header]) => {
        const response = await fetch(url ?? "", {
          method: "POST",
          headers: { authorization: header ?? "" },
          body: "{}",
        });
        return response.status;
      },
      [`${base()}/app/api/approvals/${id}/approve`, tmaHeader(h.emulator.token, VIEWER)],
    );
    expect(forged).toBe(403);
    expect(h.sandbox.countRequests(DISBURSE)).toBe(before);
    expect((await h.app.stores.payouts.get(id))?.state).toBe("awaiting_approval");
    await page.context().close();
  });

  it("refuses forged and stale init data with 401, and the page says why", async () => {
    const forgedToken = "123456789:AAForgedTokenForgedTokenForged000";
    const context = await browser.newContext({ viewport: { width: 390, height: 780 } });
    const page = await context.newPage();
    await page.goto(miniAppUrl(base(), forgedToken, ADMIN));
    await expect
      .poll(() => page.locator("[data-testid=fatal]").innerText())
      .toContain("could not be checked");

    await page.goto("about:blank");
    await page.goto(
      miniAppUrl(base(), h.emulator.token, ADMIN, {
        authDate: new Date(Date.now() - 2 * 3_600_000),
      }),
    );
    await expect
      .poll(() => page.locator("[data-testid=fatal]").innerText())
      .toContain("has expired");

    const stranger = await fetch(`${base()}/app/api/me`, {
      headers: { authorization: tmaHeader(h.emulator.token, { id: STRANGER_ID, firstName: "X" }) },
    });
    expect(stranger.status).toBe(403);
    const none = await fetch(`${base()}/app/api/overview`);
    expect(none.status).toBe(401);
    await context.close();
  });

  it("shows a batch's rows and how each stands, filtered to skipped or failed", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const file = `${[
      "téléphone;montant;motif;nom",
      "670000101;1 000;Salaire;",
      "690000101;2 000;;",
      "12345;1 000;;",
      "670000004;1 500;;",
      "670000102;2 500;Prime;",
    ].join("\r\n")}\r\n`;
    const preview = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("is checked."),
      20_000,
    );
    await payer.uploadDocument("paie.csv", "text/csv", Buffer.from(file));
    const shown = await preview;
    const summary = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("is finished."),
      30_000,
    );
    await payer.pressButton(shown, 0);
    await summary;

    const page = await open(ADMIN);
    await page.getByRole("tab", { name: "Batches" }).click();
    const batch = page.locator("details.batch").filter({ hasText: "paie.csv" });
    await batch.locator("summary").click();
    const rows = batch.locator("[data-testid=batch-rows] > li");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(5);
    await batch.getByLabel("Show rows").selectOption("skipped");
    await batch.locator("[data-testid=batch-rows] > li", { hasText: "Skipped" }).first().waitFor();
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.allInnerTexts()).toEqual([
      expect.stringContaining("Row 4"),
      expect.stringContaining("Row 5"),
    ]);
    await page.context().close();
  });

  it("reads in French, dark, at 360 px: a screenshot of each page", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 690000099 250000");
    const waiting = h.emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
    await payer.pressButton(prompt, 0);
    await waiting;
    await sendAndWait(
      h.emulator,
      h.emulator.user({ id: ADMIN_ID, firstName: "Awa" }),
      "/lang fr",
      isPromptIn(ADMIN_ID),
    );
    const page = await open({ ...ADMIN, languageCode: "fr" }, { theme: DARK_THEME, width: 360 });
    await page.locator("[data-testid=bar]").first().waitFor();
    expect(await page.locator("html").getAttribute("lang")).toBe("fr");
    expect(await page.locator("html").getAttribute("class")).toContain("dark");
    // French amounts: digits grouped with U+202F, U+00A0 before FCFA.
    expect(await page.locator(".stats").innerText()).toMatch(/\d{3}\u202F\d{3}\u00A0FCFA/);
    await page.screenshot({
      path: join(ARTIFACTS_DIR, "overview-fr-dark-360.png"),
      fullPage: true,
    });

    await page.getByRole("tab", { name: "Historique" }).click();
    await page.locator("[data-testid=history-row]").first().waitFor();
    await page.screenshot({ path: join(ARTIFACTS_DIR, "history-fr-dark-360.png"), fullPage: true });
    await page.locator("[data-testid=history-row]").first().click();
    await page.locator("[data-testid=payout-detail]").waitFor();
    await page.screenshot({ path: join(ARTIFACTS_DIR, "detail-fr-dark-360.png"), fullPage: true });

    await page.getByRole("tab", { name: "Lots" }).click();
    await page.locator("details.batch summary").first().click();
    await page.locator("[data-testid=batch-rows]").first().waitFor();
    await page.screenshot({ path: join(ARTIFACTS_DIR, "batches-fr-dark-360.png"), fullPage: true });

    await page.getByRole("tab", { name: "Approbations" }).click();
    await page.locator("[data-testid=approval]").first().waitFor();
    expect(await page.locator("[data-testid=approval]").first().innerText()).toContain("Approuver");
    await page.screenshot({
      path: join(ARTIFACTS_DIR, "approvals-fr-dark-360.png"),
      fullPage: true,
    });
    // Nothing is wider than the screen.
    const width = await page.locator("html").evaluate((root) => root.scrollWidth);
    expect(width).toBeLessThanOrEqual(360);
    await page.context().close();
  });
});
