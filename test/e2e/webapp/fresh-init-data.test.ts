/**
 * Init data Telegram signed up to WEBAPP_AUTH_MAX_AGE_SECONDS ago (an hour) is good for
 * looking only: every request that changes anything, on every non-GET route the Mini App
 * serves (walked from the app's own list, so a route added later is walked too), needs
 * init data signed within the last 10 minutes, else 401 `stale_for_change` and nothing changes. The
 * review's case: init data captured 50 minutes earlier approved a 150,000 payout.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MiniAppUser, tmaHeader } from "../../support/browser.js";
import { isPromptReading, showPrompt } from "../../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  type Harness,
  PAYER_ID,
  startHarness,
} from "../../support/harness.js";

let h: Harness;
let pageDir: string;

const FIFTY_MINUTES_MS = 50 * 60_000;
const ADMIN: MiniAppUser = { id: ADMIN_ID, firstName: "Awa", languageCode: "en" };
const APPROVER: MiniAppUser = { id: APPROVER_ID, firstName: "Ama", languageCode: "fr" };

beforeAll(async () => {
  pageDir = mkdtempSync(join(tmpdir(), "fresh-init-data-page-"));
  writeFileSync(join(pageDir, "index.html"), "<!doctype html><title>app</title>");
  h = await startHarness({
    webAppDir: pageDir,
    env: {
      APPROVAL_THRESHOLD_XAF: "100000",
      STEP_UP_THRESHOLD_XAF: "500000",
      WEBAPP_URL: "https://pay.example.test/app/",
      SCHEDULE_REMINDER_HOURS: "0",
    },
  });
}, 60_000);

afterAll(async () => {
  await h?.close();
  rmSync(pageDir, { recursive: true, force: true });
});

async function call(user: MiniAppUser, method: string, path: string, ageMs: number) {
  const signedAt = new Date(Date.now() - ageMs);
  const response = await fetch(`${h.app.http?.url}/app/api/${path}`, {
    method,
    headers: {
      authorization: tmaHeader(h.emulator.token, user, signedAt),
      "content-type": "application/json",
    },
    ...(method === "GET" ? {} : { body: "{}" }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** A route's path with a made-up value in each `:name` segment. */
const filled = (path: string) => path.replace(/:\w+/g, "abcdef1234");

describe("init data for a change", () => {
  it("is refused on every non-GET route when 50 minutes old, with the reason; fresh, it gets past the check", async () => {
    const changing = h.app.webAppRoutes.filter((route) => route.method !== "GET");
    // The routes known today, so that the walk is known to cover them.
    expect(changing.map((route) => route.path)).toEqual(
      expect.arrayContaining([
        "approvals/:id/approve",
        "approvals/:id/reject",
        "schedules/:id/pause",
        "schedules/:id/resume",
        "schedules/:id/delete",
        "recipients/:alias/forget",
        "step-up/pin",
        "step-up/approve/:id",
      ]),
    );
    for (const route of changing) {
      const stale = await call(ADMIN, route.method, filled(route.path), FIFTY_MINUTES_MS);
      expect({ route: route.path, ...stale }).toEqual({
        route: route.path,
        status: 401,
        json: { error: "unauthorized", reason: "stale_for_change" },
      });
      const fresh = await call(ADMIN, route.method, filled(route.path), 0);
      expect({ route: route.path, status: fresh.status }).not.toEqual({
        route: route.path,
        status: 401,
      });
    }
    // Looking with the same 50-minute-old init data is still allowed.
    expect((await call(ADMIN, "GET", "schedules", FIFTY_MINUTES_MS)).status).toBe(200);
  });

  it("does not approve a 150,000 payout with init data signed 50 minutes ago; fresh, it does", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/pay 670000001 150000");
    const waiting = h.emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
    await payer.pressButton(prompt, 0);
    await waiting;
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 5 });
    const payout = items.find((item) => item.messageId === prompt.messageId);
    expect(payout?.state).toBe("awaiting_approval");
    const path = `approvals/${payout?.id}/approve`;

    const replayed = await call(APPROVER, "POST", path, FIFTY_MINUTES_MS);
    expect(replayed).toEqual({
      status: 401,
      json: { error: "unauthorized", reason: "stale_for_change" },
    });
    expect((await h.app.stores.payouts.get(payout?.id ?? ""))?.state).toBe("awaiting_approval");

    const fresh = await call(APPROVER, "POST", path, 0);
    expect(fresh.status).toBe(200);
    expect((await h.app.stores.payouts.get(payout?.id ?? ""))?.state).not.toBe("awaiting_approval");
  });
});
