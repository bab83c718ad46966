/**
 * The Mini App's Schedules and Saved recipients pages in a real browser (Chromium through
 * playwright-core), served by the bot's own HTTP server against real Redis, the sandbox and
 * the emulator: a schedule made in the chat is paused from the page (and is paused in the
 * store, audited once), a viewer sees no buttons, the address book is searched and an entry
 * forgotten after the second step; screenshots in English light and French dark at 360 px.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DARK_THEME } from "../../src/dev/telegram-emulator/index.js";
import { buildWebPage } from "../../web/build.js";
import { ARTIFACTS_DIR, launchBrowser, type MiniAppUser, miniAppUrl } from "../support/browser.js";
import { pressAndWait, sendAndWait, showPrompt } from "../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  type Harness,
  PAYER_ID,
  startHarness,
  VIEWER_ID,
} from "../support/harness.js";

const ADMIN: MiniAppUser = { id: ADMIN_ID, firstName: "Awa", languageCode: "en" };
const PAYER: MiniAppUser = { id: PAYER_ID, firstName: "Paul", languageCode: "en" };
const VIEWER: MiniAppUser = { id: VIEWER_ID, firstName: "Vera", languageCode: "en" };

let h: Harness;
let browser: Browser;
let paulsId = "";

function base(): string {
  const http = h.app.http;
  if (!http) throw new Error("the app has no HTTP server");
  return http.url;
}

async function open(
  user: MiniAppUser,
  options: { theme?: Readonly<Record<string, string>>; width?: number } = {},
): Promise<Page> {
  const context = await browser.newContext({
    locale: user.languageCode === "fr" ? "fr-FR" : "en-GB",
    viewport: { width: options.width ?? 390, height: 780 },
    deviceScaleFactor: 2,
  });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  await page.goto(miniAppUrl(base(), h.emulator.token, user, options));
  return page;
}

function chatUser(user: MiniAppUser) {
  return h.emulator.user({ id: user.id, firstName: user.firstName, languageCode: "en" });
}

/** `/schedule …` as `user`, confirmed in the chat; the schedule's id from its button. */
async function scheduleInChat(user: MiniAppUser, command: string): Promise<string> {
  const chat = chatUser(user);
  const prompt = await showPrompt(h.emulator, chat, command);
  const data = prompt.replyMarkup?.[0]?.[0]?.callback_data ?? "";
  await pressAndWait(h.emulator, chat, prompt, "Active");
  return data.replace(/^sc:/, "");
}

/** /save as `user`, then Save on its prompt. */
async function save(user: MiniAppUser, command: string): Promise<void> {
  const chat = chatUser(user);
  const prompt = await showPrompt(h.emulator, chat, command);
  const after = h.emulator.waitForMessage(
    (m) => m.messageId === prompt.messageId && (m.replyMarkup ?? []).length === 0,
  );
  await chat.pressButton(prompt, 0);
  await after;
}

beforeAll(async () => {
  const webAppDir = await buildWebPage(join(tmpdir(), `payout-webapp-sched-${process.pid}`));
  h = await startHarness({ webAppDir, env: { SCHEDULE_REMINDER_HOURS: "0" } });
  browser = await launchBrowser();
  for (const [id, firstName] of [
    [ADMIN_ID, "Awa"],
    [PAYER_ID, "Paul"],
    [VIEWER_ID, "Vera"],
    [APPROVER_ID, "Ama"],
  ] as const) {
    await sendAndWait(h.emulator, h.emulator.user({ id, firstName, languageCode: "en" }), "/help");
  }
  paulsId = await scheduleInChat(PAYER, "/schedule weekly fri 670000001 5000 rent");
  await scheduleInChat(ADMIN, "/schedule monthly last 14:00 690000001 150000 salary");
  await save(PAYER, "/save Jean 670000001");
  await save(ADMIN, "/save Aïcha 690000001");
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe("the Schedules and Saved recipients pages", () => {
  it("pauses a schedule from the page: it reads Paused, and is paused in the store, audited once", async () => {
    const page = await open(ADMIN);
    await page.getByRole("tab", { name: "Schedules" }).click();
    const card = page.locator(`[data-testid=schedule][data-schedule-id="${paulsId}"]`);
    await card.waitFor();
    const text = await card.innerText();
    expect(text).toContain("Jean-Paul Mbarga");
    expect(text).toContain("Saved as Jean");
    expect(text).toContain("Every Friday at 09:00");
    expect(text).toContain("Set up by Paul");
    expect(text).toMatch(/Next runs:\s*Fri, \d+ \w+ \d{4}, 09:00 UTC\+1/);
    await page.screenshot({ path: join(ARTIFACTS_DIR, "schedules-en-light.png"), fullPage: true });

    // A double tap: the second press finds the button disabled, or gone.
    await card.getByRole("button", { name: "Pause 5,000 FCFA to Jean-Paul Mbarga" }).dblclick({
      force: true,
    });
    await expect.poll(() => card.getAttribute("data-state")).toBe("paused");
    expect(await card.locator("[role=status]").innerText()).toContain("Paused: no run is sent");
    expect(await card.locator(".badge").innerText()).toBe("Paused");
    await card.getByRole("button", { name: /^Resume/ }).waitFor();
    expect((await h.app.stores.schedules.get(paulsId))?.state).toBe("paused");
    const pauses = (await h.app.stores.audit.recent(50)).filter(
      (entry) => entry.action === "schedule_pause" && entry.details?.scheduleId === paulsId,
    );
    expect(pauses).toHaveLength(1);
    expect(pauses[0]?.actorId).toBe(ADMIN_ID);
    await page.screenshot({
      path: join(ARTIFACTS_DIR, "schedules-en-light-paused.png"),
      fullPage: true,
    });
    await page.context().close();
  });

  it("shows a viewer the schedules without a button", async () => {
    const page = await open(VIEWER);
    await page.getByRole("tab", { name: "Schedules" }).click();
    await page.locator("[data-testid=schedule]").first().waitFor();
    expect(await page.locator("[data-testid=schedule]").count()).toBe(2);
    expect(await page.locator("[data-testid=schedule] button").count()).toBe(0);
    await page.context().close();
  });

  it("searches the address book and forgets an entry after the second step", async () => {
    const page = await open(PAYER);
    await page.getByRole("tab", { name: "Recipients" }).click();
    const rows = page.locator("[data-testid=recipient]");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(2);
    // Only the payer's own entry may be forgotten by them.
    expect(await page.locator("[data-action=forget]").count()).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS_DIR, "recipients-en-light.png"), fullPage: true });
    await page.getByLabel("Search", { exact: true }).fill("mbarga");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect.poll(() => rows.count()).toBe(1);
    const jean = rows.first();
    // The number masked as the bot's /recipients masks it, grouped as everywhere else.
    expect(await jean.innerText()).toMatch(/Jean\s+Jean-Paul Mbarga\s+67• •• •0 01 ·/);
    await jean.getByRole("button", { name: "Forget Jean" }).click();
    await jean.getByText("Forget Jean? Payments already made are not touched.").waitFor();
    await jean.getByRole("button", { name: "Forget Jean" }).click();
    await expect.poll(() => jean.locator("[role=status]").innerText()).toBe("Jean is forgotten.");
    expect(await h.app.stores.recipients.get("jean")).toBeNull();
    await page.context().close();
  });

  it("reads in French, dark, at 360 px: a screenshot of each page", async () => {
    await sendAndWait(h.emulator, chatUser(ADMIN), "/lang fr");
    const page = await open({ ...ADMIN, languageCode: "fr" }, { theme: DARK_THEME, width: 360 });
    await page.getByRole("tab", { name: "Programmations" }).click();
    const cards = page.locator("[data-testid=schedule]");
    await cards.first().waitFor();
    expect(await page.locator("html").getAttribute("class")).toContain("dark");
    const text = await page.locator("[data-testid=schedules]").innerText();
    expect(text).toContain("Le dernier jour de chaque mois à 14:00");
    expect(text).toMatch(/150\u202F000\u00A0FCFA/);
    expect(text).toContain("Reprendre");
    await page.screenshot({
      path: join(ARTIFACTS_DIR, "schedules-fr-dark-360.png"),
      fullPage: true,
    });

    await page.getByRole("tab", { name: "Bénéficiaires" }).click();
    await page.locator("[data-testid=recipient]").first().waitFor();
    await page.screenshot({
      path: join(ARTIFACTS_DIR, "recipients-fr-dark-360.png"),
      fullPage: true,
    });
    const width = await page.locator("html").evaluate((root) => root.scrollWidth);
    expect(width).toBeLessThanOrEqual(360);
    await page.context().close();
  });
});
