/**
 * The PIN before a big schedule, end to end, and the PIN's hardening: a schedule at or
 * over STEP_UP_THRESHOLD_XAF shows a Mini App button instead of the chat's Confirm (and
 * Approve, on the approvers' cards); a forged chat press moves nothing; in the Mini App a
 * wrong PIN, then the right one, runs the chat's own step once, audited. Setting or trying
 * a PIN takes init data signed within the last ten minutes, and an approval's "seen the
 * repeat" time from the client is bounded.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sign } from "@telegram-apps/init-data-node";
import { afterAll, describe, expect, it } from "vitest";
import {
  type InlineKeyboard,
  plainText,
  type SentMessage,
} from "../../../src/dev/telegram-emulator/index.js";
import { isPromptIn, isPromptReading, sendAndWait, showPrompt } from "../../support/flows.js";
import { APPROVER_ID, type Harness, harnessPerTest, PAYER_ID } from "../../support/harness.js";

const WEBAPP_URL = "https://pay.example.test/app/";
const flatButtons = (keyboard: InlineKeyboard | undefined) => (keyboard ?? []).flat();

// The page itself is the Mini App's (its own tests); the API needs only that one exists.
const pageDir = mkdtempSync(join(tmpdir(), "schedule-step-up-page-"));
writeFileSync(join(pageDir, "index.html"), "<!doctype html><title>app</title>");
afterAll(() => rmSync(pageDir, { recursive: true, force: true }));

/** A Mini App API call as `userId`, its init data signed by the bot token `ageMs` ago. */
async function call(
  h: Harness,
  userId: number,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  ageMs = 0,
) {
  const initData = sign(
    { user: { id: userId, first_name: "Paul", language_code: "en" }, query_id: "q" },
    h.emulator.token,
    new Date(Date.now() - ageMs),
  );
  const response = await fetch(`${h.app.http?.url}/app/api/${path}`, {
    method,
    headers: {
      authorization: `tma ${initData}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** The schedule's id from the Mini App button on `message` (`step_up=ACTION.ID`). */
function scheduleIdOf(message: SentMessage, action: string): string {
  const button = flatButtons(message.replyMarkup).find((b) => b.web_app);
  const opened = new URL(button?.web_app?.url ?? "https://x.invalid/");
  return (opened.searchParams.get("step_up") ?? "").replace(`${action}.`, "");
}

const actionsOf = async (h: Harness) =>
  (await h.app.stores.audit.recent(100)).map((entry) => entry.action);

describe("the PIN before a big schedule", () => {
  const h = harnessPerTest({
    env: {
      STEP_UP_THRESHOLD_XAF: "100000",
      APPROVAL_THRESHOLD_XAF: "200000",
      WEBAPP_URL,
      SCHEDULE_REMINDER_HOURS: "0",
    },
    webAppDir: pageDir,
  });

  it("opens the Mini App for its Confirm; a forged chat Confirm moves nothing; a wrong PIN, then the right one, activates it once", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(
      h.emulator,
      payer,
      "/schedule monthly 28 670000001 150000 salary",
    );
    const id = scheduleIdOf(prompt, "schedule-confirm");
    const buttons = flatButtons(prompt.replyMarkup);
    expect(buttons.map((button) => button.text)).toEqual(["🔐 Confirm with PIN", "✖️ Cancel"]);
    expect(buttons[0]?.web_app?.url).toBe(`${WEBAPP_URL}?step_up=schedule-confirm.${id}`);
    expect(plainText(prompt)).toContain("From 100,000 FCFA, confirming takes your PIN");

    // A chat Confirm, forged (the prompt has none), is refused with an alert.
    const forged = await payer.pressCallbackData(prompt.messageId, `sc:${id}`);
    const answer = await h.emulator.waitForCallbackAnswer(forged.callbackQueryId);
    expect(answer.text).toContain("This schedule needs your PIN");
    expect(answer.showAlert).toBe(true);
    expect((await h.app.stores.schedules.get(id))?.state).toBe("awaiting_confirmation");

    // The page shows the prompt's facts: who, how much per run, the note, the plan, the runs.
    const item = await call(h, PAYER_ID, "GET", `step-up/schedule-confirm/${id}`);
    expect(item).toMatchObject({
      status: 200,
      json: {
        schedule: { id, amount: 150_000, recipientName: "Jean-Paul Mbarga", note: "salary" },
        pin: { state: "none" },
      },
    });
    const shown = item.json.schedule as { plan: string; nextRuns: string[] };
    expect(plainText(prompt)).toContain(shown.plan);
    expect(shown.nextRuns).toHaveLength(3);
    for (const run of shown.nextRuns) expect(plainText(prompt)).toContain(run);

    await call(h, PAYER_ID, "POST", "step-up/pin", { pin: "123456", repeat: "123456" });
    const wrong = await call(h, PAYER_ID, "POST", `step-up/schedule-confirm/${id}`, {
      pin: "000000",
    });
    expect(wrong).toEqual({ status: 422, json: { error: "wrong_pin", left: 4 } });
    expect((await h.app.stores.schedules.get(id))?.state).toBe("awaiting_confirmation");

    const edited = h.emulator.waitForMessage(isPromptReading(prompt, "Active"));
    const right = await call(h, PAYER_ID, "POST", `step-up/schedule-confirm/${id}`, {
      pin: "123456",
    });
    expect(right).toEqual({ status: 200, json: { outcome: "done", state: "active" } });
    // The chat prompt says so, its buttons gone.
    expect(flatButtons((await edited).replyMarkup)).toEqual([]);
    const again = await call(h, PAYER_ID, "POST", `step-up/schedule-confirm/${id}`, {
      pin: "123456",
    });
    expect(again.status).toBe(404);
    const actions = await actionsOf(h);
    expect(actions.filter((action) => action === "schedule_confirm")).toHaveLength(1);
    expect(actions).toEqual(expect.arrayContaining(["pin_set", "pin_failed"]));
    expect(JSON.stringify(await h.app.stores.audit.recent(100))).not.toContain("123456");
  });

  it("takes the approver's PIN for its Approve: the card opens the Mini App, a forged Approve decides nothing", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Aline", languageCode: "en" });
    await sendAndWait(h.emulator, approver, "/help");
    const prompt = await showPrompt(h.emulator, payer, "/schedule weekly fri 670000001 250000");
    const id = scheduleIdOf(prompt, "schedule-confirm");
    await call(h, PAYER_ID, "POST", "step-up/pin", { pin: "123456", repeat: "123456" });
    const card = h.emulator.waitForMessage(
      (message) =>
        message.chatId === APPROVER_ID &&
        flatButtons(message.replyMarkup).some((button) => button.web_app !== undefined),
    );
    const confirmed = await call(h, PAYER_ID, "POST", `step-up/schedule-confirm/${id}`, {
      pin: "123456",
    });
    expect(confirmed).toEqual({
      status: 200,
      json: { outcome: "approval_requested", state: "awaiting_approval" },
    });

    const shownCard = await card;
    const approveButton = flatButtons(shownCard.replyMarkup)[0];
    expect(approveButton?.text).toBe("🔐 Approve with PIN");
    expect(approveButton?.web_app?.url).toBe(`${WEBAPP_URL}?step_up=schedule-approve.${id}`);
    expect(plainText(shownCard)).toContain("From 100,000 FCFA, approving takes your PIN");
    const forged = await approver.pressCallbackData(shownCard.messageId, `sa:${id}`);
    const answer = await h.emulator.waitForCallbackAnswer(forged.callbackQueryId);
    expect(answer.text).toContain("This schedule needs your PIN");
    expect((await h.app.stores.schedules.get(id))?.state).toBe("awaiting_approval");
    // Its owner may not approve it, PIN or not.
    expect((await call(h, PAYER_ID, "GET", `step-up/schedule-approve/${id}`)).status).toBe(403);

    const item = await call(h, APPROVER_ID, "GET", `step-up/schedule-approve/${id}`);
    expect(item).toMatchObject({ status: 200, json: { schedule: { id, amount: 250_000 } } });
    await call(h, APPROVER_ID, "POST", "step-up/pin", { pin: "135790", repeat: "135790" });
    const wrong = await call(h, APPROVER_ID, "POST", `step-up/schedule-approve/${id}`, {
      pin: "123456",
    });
    expect(wrong).toEqual({ status: 422, json: { error: "wrong_pin", left: 4 } });
    const told = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes(id) && !isPromptIn(PAYER_ID)(m),
    );
    const right = await call(h, APPROVER_ID, "POST", `step-up/schedule-approve/${id}`, {
      pin: "135790",
    });
    expect(right).toEqual({ status: 200, json: { outcome: "done", state: "active" } });
    await told;
    const actions = await actionsOf(h);
    expect(actions.filter((action) => action === "schedule_approve")).toHaveLength(1);
    expect((await h.app.stores.schedules.get(id))?.approvedBy).toBe(APPROVER_ID);
  });

  it("activates it once when the right PIN is sent three times at once", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/schedule weekly mon 670000001 150000");
    const id = scheduleIdOf(prompt, "schedule-confirm");
    await call(h, PAYER_ID, "POST", "step-up/pin", { pin: "123456", repeat: "123456" });
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        call(h, PAYER_ID, "POST", `step-up/schedule-confirm/${id}`, { pin: "123456" }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect((await h.app.stores.schedules.get(id))?.state).toBe("active");
    const actions = await actionsOf(h);
    expect(actions.filter((action) => action === "schedule_confirm")).toHaveLength(1);
  });

  it("sets or tries a PIN only with init data signed in the last ten minutes; nothing is counted otherwise", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const prompt = await showPrompt(h.emulator, payer, "/schedule monthly 1 670000001 150000");
    const id = scheduleIdOf(prompt, "schedule-confirm");
    const elevenMinutes = 11 * 60_000;
    // Replayed init data (still good for looking, an hour) sets no PIN for someone who has none.
    const set = { pin: "111111", repeat: "111111" };
    const staleSet = await call(h, PAYER_ID, "POST", "step-up/pin", set, elevenMinutes);
    expect(staleSet).toEqual({ status: 401, json: { error: "unauthorized", reason: "stale" } });
    const looked = await call(
      h,
      PAYER_ID,
      "GET",
      `step-up/schedule-confirm/${id}`,
      undefined,
      elevenMinutes,
    );
    expect(looked).toMatchObject({ status: 200, json: { pin: { state: "none" } } });

    // Nor does it spend the person's tries: six replayed guesses lock nothing.
    await call(h, PAYER_ID, "POST", "step-up/pin", { pin: "123456", repeat: "123456" });
    for (let i = 0; i < 6; i += 1) {
      const stale = await call(
        h,
        PAYER_ID,
        "POST",
        `step-up/schedule-confirm/${id}`,
        { pin: "999999" },
        elevenMinutes,
      );
      expect(stale.status).toBe(401);
    }
    expect(await actionsOf(h)).not.toContain("pin_failed");
    // Nine minutes old is fresh enough, and the right PIN still works.
    const fresh = await call(
      h,
      PAYER_ID,
      "POST",
      `step-up/schedule-confirm/${id}`,
      { pin: "123456" },
      9 * 60_000,
    );
    expect(fresh).toEqual({ status: 200, json: { outcome: "done", state: "active" } });
  });
});

describe("an approval's word that it showed the repeat", () => {
  const h = harnessPerTest({
    env: { APPROVAL_THRESHOLD_XAF: "100000", WEBAPP_URL },
    webAppDir: pageDir,
  });

  it("counts only a time between the duplicate window's start and now", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const ask = async (confirm: string) => {
      const prompt = await showPrompt(h.emulator, payer, "/pay 670000001 250000 rent");
      const waiting = h.emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
      await payer.pressButton(prompt, confirm);
      await waiting;
    };
    await ask("✅ Confirm");
    await ask("⚠️ Pay again");
    const listed = await h.app.stores.payouts.list({ limit: 10, offset: 0 });
    const waiting = listed.items.filter((payout) => payout.state === "awaiting_approval");
    const [second, first] = waiting.sort((a, b) => b.createdAtMs - a.createdAtMs);
    expect(first && second).toBeTruthy();
    const approve = (seenAtMs: number) =>
      call(h, APPROVER_ID, "POST", `approvals/${second?.id}/approve`, {
        duplicateSeenAtMs: seenAtMs,
      });
    // A time in the future would wave through any repeat, shown or not: no word at all.
    const future = await approve(Date.now() + 24 * 3_600_000);
    expect(future).toMatchObject({ status: 409, json: { error: "duplicate" } });
    // Older than the window (no payout that old counts): the same.
    const ancient = await approve(1);
    expect(ancient).toMatchObject({ status: 409, json: { error: "duplicate" } });
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
    // The repeat's own time, as the 409 gives it: approved anyway, one POST.
    const seen = Number(future.json.duplicateSeenAtMs);
    expect(seen).toBe(first?.createdAtMs);
    const approved = await approve(seen);
    expect(approved.status).toBe(200);
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
  });
});
