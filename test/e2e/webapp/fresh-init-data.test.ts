/**
 * Every Mini App request that changes anything takes init data Telegram signed in the last
 * 10 minutes (reads take it for WEBAPP_AUTH_MAX_AGE_SECONDS): init data captured 50 minutes
 * earlier approved a 150,000 payout in a review. The rule is the handler's, before any route,
 * so a route added later cannot forget it.
 */
import { sign } from "@telegram-apps/init-data-node";
import { describe, expect, it } from "vitest";
import { sendAndWait } from "../../support/flows.js";
import { APPROVER_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";

const MINUTE_MS = 60_000;

describe("Mini App changes with old init data", () => {
  const h = harnessPerTest({
    env: { WEBAPP_URL: "https://pay.example.test/app/", APPROVAL_THRESHOLD_XAF: "100000" },
  });

  async function call(userId: number, method: "GET" | "POST", path: string, ageMs: number) {
    const initData = sign(
      { user: { id: userId, first_name: "Ama", language_code: "en" }, query_id: "q" },
      h.emulator.token,
      new Date(Date.now() - ageMs),
    );
    const response = await fetch(`${h.app.http?.url}/app/api/${path}`, {
      method,
      headers: {
        authorization: `tma ${initData}`,
        ...(method === "POST" ? { "content-type": "application/json" } : {}),
      },
      ...(method === "POST" ? { body: "{}" } : {}),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  it("refuses an approval signed 50 minutes ago, reads with it, and approves with fresh init data", async () => {
    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    await sendAndWait(h.emulator, approver, "/help");
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await sendAndWait(h.emulator, payer, "/pay 670000001 150000");
    const waiting = h.emulator.waitForMessage(
      (m) => m.messageId === prompt.messageId && m.text.includes("Waiting for approval"),
    );
    await payer.pressButton(prompt, 0);
    await waiting;
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 1 });
    const payoutId = items[0]?.id ?? "";

    const old = await call(APPROVER_ID, "POST", `approvals/${payoutId}/approve`, 50 * MINUTE_MS);
    expect(old).toEqual({
      status: 401,
      json: { error: "unauthorized", reason: "stale_for_change" },
    });
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
    expect((await h.app.stores.payouts.get(payoutId))?.state).toBe("awaiting_approval");
    // Reading is not changing: the same init data still lists what waits.
    expect((await call(APPROVER_ID, "GET", "approvals", 50 * MINUTE_MS)).status).toBe(200);

    const fresh = await call(APPROVER_ID, "POST", `approvals/${payoutId}/approve`, 9 * MINUTE_MS);
    expect(fresh.status).toBe(200);
    await expect.poll(() => h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
  });

  it.each([
    "approvals/x/approve",
    "approvals/x/reject",
    "recipients/jean/forget",
    "schedules/x/pause",
    "schedules/x/resume",
    "schedules/x/delete",
    "step-up/confirm/x",
    "step-up/approve/x",
    "step-up/pin",
    "a/route/added/later",
  ])("refuses POST %s with init data 11 minutes old, before the route runs", async (path) => {
    const reply = await call(APPROVER_ID, "POST", path, 11 * MINUTE_MS);
    expect(reply).toEqual({
      status: 401,
      json: { error: "unauthorized", reason: "stale_for_change" },
    });
  });
});
