import { describe, expect, it } from "vitest";
import {
  type InlineKeyboard,
  plainText,
  type SentMessage,
} from "../../../src/dev/telegram-emulator/index.js";
import { apiWorldPerTest, callApi, WEBAPP_URL } from "../../support/api-world.js";
import { isPromptIn, isPromptReading, sendAndWait } from "../../support/flows.js";
import { ADMIN_ID, APPROVER_ID, PAYER_ID } from "../../support/harness.js";

const flatButtons = (keyboard: InlineKeyboard | undefined) => (keyboard ?? []).flat();

const THRESHOLD = 100_000;

const world = apiWorldPerTest("step-up", {
  STEP_UP_THRESHOLD_XAF: String(THRESHOLD),
  APPROVAL_THRESHOLD_XAF: "200000",
});

/** A Mini App API call as `userId`, with init data signed by the bot token now. */
const call = (userId: number, method: "GET" | "POST", path: string, body?: unknown) =>
  callApi(world(), { id: userId, firstName: "Paul" }, method, path, body);

/** `/pay` of a big amount as the payer: the prompt, and the payout's id from its button. */
async function bigPrompt(
  amount = 150_000,
  number = "670000001",
): Promise<{ prompt: SentMessage; payoutId: string }> {
  const { emulator } = world();
  const payer = emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  const prompt = await sendAndWait(
    emulator,
    payer,
    `/pay ${number} ${amount}`,
    isPromptIn(PAYER_ID),
  );
  const pinButton = flatButtons(prompt.replyMarkup).find((button) => button.web_app);
  const opened = new URL(pinButton?.web_app?.url ?? "https://x.invalid/");
  const payoutId = (opened.searchParams.get("step_up") ?? "").replace(/^confirm\./, "");
  return { prompt, payoutId };
}

const disbursements = () => world().sandbox.countRequests({ method: "POST", path: "/disburse" });

describe("the PIN before big money moves", () => {
  it("opens the Mini App for a big Confirm; a wrong PIN, then the right one, sends one POST", async () => {
    const { emulator, app } = world();
    const { prompt, payoutId } = await bigPrompt();
    const buttons = flatButtons(prompt.replyMarkup);
    expect(buttons.map((button) => button.text)).toEqual(["🔐 Confirm with PIN", "✖️ Cancel"]);
    expect(buttons[0]?.web_app?.url).toBe(`${WEBAPP_URL}?step_up=confirm.${payoutId}`);
    expect(buttons.some((button) => button.callback_data?.startsWith("c:"))).toBe(false);
    expect(plainText(prompt)).toContain("From 100,000 FCFA, confirming takes your PIN");

    // The page shows the prompt's facts and asks for a PIN to be set (typed twice).
    const item = await call(PAYER_ID, "GET", `step-up/confirm/${payoutId}`);
    expect(item).toMatchObject({
      status: 200,
      json: {
        payout: { id: payoutId, amount: 150_000, recipientName: "Jean-Paul Mbarga" },
        pin: { state: "none" },
      },
    });
    expect(await call(PAYER_ID, "POST", `step-up/confirm/${payoutId}`, { pin: "123456" })).toEqual({
      status: 409,
      json: { error: "pin_not_set" },
    });
    const mismatch = await call(PAYER_ID, "POST", "step-up/pin", {
      pin: "123456",
      repeat: "123465",
    });
    expect(mismatch).toEqual({ status: 400, json: { error: "mismatch" } });
    const short = await call(PAYER_ID, "POST", "step-up/pin", { pin: "12345", repeat: "12345" });
    expect(short).toEqual({ status: 400, json: { error: "malformed" } });
    expect(
      await call(PAYER_ID, "POST", "step-up/pin", { pin: "123456", repeat: "123456" }),
    ).toEqual({ status: 201, json: { outcome: "set" } });
    expect(
      await call(PAYER_ID, "POST", "step-up/pin", { pin: "654321", repeat: "654321" }),
    ).toEqual({ status: 409, json: { error: "already_set" } });

    const wrong = await call(PAYER_ID, "POST", `step-up/confirm/${payoutId}`, { pin: "000000" });
    expect(wrong).toEqual({ status: 422, json: { error: "wrong_pin", left: 4 } });
    expect(disbursements()).toBe(0);
    expect((await app.stores.payouts.get(payoutId))?.state).toBe("awaiting_confirmation");

    const pending = emulator.waitForMessage(isPromptReading(prompt, "Pending"));
    const right = await call(PAYER_ID, "POST", `step-up/confirm/${payoutId}`, { pin: "123456" });
    expect(right).toEqual({ status: 200, json: { outcome: "pending", state: "pending" } });
    expect(disbursements()).toBe(1);
    // The chat prompt says so, its buttons gone.
    expect(flatButtons((await pending).replyMarkup)).toEqual([]);
    // Once confirmed, nothing more to confirm: a second try sends nothing.
    const again = await call(PAYER_ID, "POST", `step-up/confirm/${payoutId}`, { pin: "123456" });
    expect(again.status).toBe(404);
    expect(disbursements()).toBe(1);

    const actions = (await app.stores.audit.recent(50)).map((entry) => entry.action);
    expect(actions).toEqual(expect.arrayContaining(["pin_set", "pin_failed", "confirm"]));
    // The PIN is never in the audit trail or a message.
    const trail = JSON.stringify(await app.stores.audit.recent(50));
    expect(trail).not.toContain("123456");
    expect(emulator.messages(PAYER_ID).some((m) => plainText(m).includes("123456"))).toBe(false);
  });

  it("leaves the prompt on the final status when the payment settles before the PIN Confirm's edit lands", async () => {
    const { emulator } = world();
    const { prompt, payoutId } = await bigPrompt();
    const set = await call(PAYER_ID, "POST", "step-up/pin", { pin: "123456", repeat: "123456" });
    expect(set.status).toBe(201);
    // The page's Confirm edits the chat prompt slowly; meanwhile the payment settles and the
    // notifier edits the prompt to its final status.
    emulator.delayNext("editMessageText", 1_500);
    const paid = emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && m.messageId !== prompt.messageId && m.text.includes("Paid"),
      30_000,
    );
    const right = await call(PAYER_ID, "POST", `step-up/confirm/${payoutId}`, { pin: "123456" });
    expect(right.status).toBe(200);
    await paid;

    const text = () => plainText(emulator.message(PAYER_ID, prompt.messageId) ?? prompt);
    await expect.poll(text, { timeout: 10_000 }).toContain("Completed");
    // Well after the page's late edit: the prompt still reads the final status.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(text()).toContain("Completed");
    expect(text()).not.toContain("Pending");
  });

  it("refuses a chat Confirm of a big payout: a forged press does not skip the PIN", async () => {
    const { emulator, app } = world();
    const { prompt, payoutId } = await bigPrompt();
    const payer = emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const pressed = await payer.pressCallbackData(prompt.messageId, `c:${payoutId}`);
    const answer = await emulator.waitForCallbackAnswer(pressed.callbackQueryId);
    expect(answer.text).toContain("This amount needs your PIN");
    expect(answer.showAlert).toBe(true);
    expect((await app.stores.payouts.get(payoutId))?.state).toBe("awaiting_confirmation");
    expect(disbursements()).toBe(0);
    // A payout under the threshold keeps its chat Confirm.
    const small = await sendAndWait(emulator, payer, "/pay 670000001 5000", isPromptIn(PAYER_ID));
    expect(flatButtons(small.replyMarkup)[0]?.callback_data).toMatch(/^c:/);
    // So does a collection, whatever its amount: no money leaves with it.
    const collect = await sendAndWait(
      emulator,
      payer,
      "/collect 690000001 150000",
      isPromptIn(PAYER_ID),
    );
    expect(flatButtons(collect.replyMarkup)[0]?.callback_data).toMatch(/^c:/);
  });

  it("locks the PIN after five wrong tries and alerts the admins; /pin reset keeps the lock", async () => {
    const { emulator, app } = world();
    const admin = emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    await sendAndWait(emulator, admin, "/help");
    const { payoutId } = await bigPrompt();
    await call(PAYER_ID, "POST", "step-up/pin", { pin: "123456", repeat: "123456" });
    const alert = emulator.waitForMessage(
      (message) => message.chatId === ADMIN_ID && plainText(message).startsWith("🔒 PIN locked"),
    );
    const tries = [];
    for (let i = 0; i < 5; i += 1) {
      tries.push(await call(PAYER_ID, "POST", `step-up/confirm/${payoutId}`, { pin: "999999" }));
    }
    expect(tries.slice(0, 4).map((answer) => answer.json.left)).toEqual([4, 3, 2, 1]);
    expect(tries[4]).toMatchObject({ status: 423, json: { error: "pin_locked" } });
    // Locked: even the right PIN is refused, and nothing is sent.
    const locked = await call(PAYER_ID, "POST", `step-up/confirm/${payoutId}`, { pin: "123456" });
    expect(locked.status).toBe(423);
    expect(disbursements()).toBe(0);
    expect(plainText(await alert)).toContain(`Paul (id ${PAYER_ID}) typed too many wrong PINs`);
    const actions = (await app.stores.audit.recent(50)).map((entry) => entry.action);
    expect(actions.filter((action) => action === "pin_failed")).toHaveLength(5);
    expect(actions.filter((action) => action === "pin_locked")).toHaveLength(1);
    // In the admins' /audit, in words.
    const trail = plainText(await sendAndWait(emulator, admin, "/audit"));
    expect(trail).toContain("PIN locked after too many wrong tries");
    expect(trail).toMatch(/locked until \d{2} \w{3}, \d{2}:\d{2}/);
    expect(trail).toContain("Wrong PIN entered");
    expect(trail).toContain("tries left 4");

    // Only an admin may reset it, and a reset keeps the lock (pin-rules.test.ts goes on
    // past its end: a new PIN, fresh init data, the admins told).
    const payer = emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const refused = await sendAndWait(emulator, payer, `/pin reset ${PAYER_ID}`);
    expect(plainText(refused)).toBe("Only an admin can reset a PIN.");
    const reset = await sendAndWait(emulator, admin, `/pin reset ${PAYER_ID}`);
    expect(plainText(reset)).toMatch(
      /^PIN of Paul reset: they set a new one the next time a Confirm asks for it\.\nTheir PIN stays locked until /,
    );
    const item = await call(PAYER_ID, "GET", `step-up/confirm/${payoutId}`);
    expect(item.json.pin).toMatchObject({ state: "locked" });
    const set = await call(PAYER_ID, "POST", "step-up/pin", { pin: "246810", repeat: "246810" });
    expect(set).toMatchObject({ status: 423, json: { error: "pin_locked" } });
    expect(disbursements()).toBe(0);
    expect((await app.stores.audit.recent(50)).map((entry) => entry.action)).toContain("pin_reset");
  });

  it("sends one POST when the right PIN is sent three times at once", async () => {
    const { app } = world();
    const { payoutId } = await bigPrompt();
    await call(PAYER_ID, "POST", "step-up/pin", { pin: "123456", repeat: "123456" });
    const answers = await Promise.all(
      [1, 2, 3].map(() => call(PAYER_ID, "POST", `step-up/confirm/${payoutId}`, { pin: "123456" })),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(disbursements()).toBe(1);
    expect((await app.stores.payouts.get(payoutId))?.state).toMatch(/pending|success/);
  });

  it("answers 401 without init data signed by the bot token", async () => {
    const { api } = world();
    const response = await fetch(`${api}step-up/pin`, {
      method: "POST",
      headers: { authorization: "tma user=%7B%22id%22%3A1002%7D&hash=00" },
      body: JSON.stringify({ pin: "123456", repeat: "123456" }),
    });
    expect(response.status).toBe(401);
  });
});

describe("the PIN before a big approval", () => {
  it("takes the approver's PIN too: the card's Approve and the dashboard's refuse, the PIN's sends one POST", async () => {
    const { emulator, app, api } = world();
    const approver = emulator.user({ id: APPROVER_ID, firstName: "Aline", languageCode: "en" });
    await sendAndWait(emulator, approver, "/help");
    const { payoutId } = await bigPrompt(250_000);
    await call(PAYER_ID, "POST", "step-up/pin", { pin: "123456", repeat: "123456" });
    const card = emulator.waitForMessage(
      (message) =>
        message.chatId === APPROVER_ID &&
        flatButtons(message.replyMarkup).some((button) => button.web_app !== undefined),
    );
    const confirmed = await call(PAYER_ID, "POST", `step-up/confirm/${payoutId}`, {
      pin: "123456",
    });
    expect(confirmed.json).toEqual({
      outcome: "approval_requested",
      state: "awaiting_approval",
    });

    // The approver's card opens the Mini App on it; its Approve, pressed anyway in the chat
    // (forged), decides nothing; nor does the dashboard's, without a PIN.
    const shown = await card;
    const approveButton = flatButtons(shown.replyMarkup)[0];
    expect(approveButton?.text).toBe("🔐 Approve with PIN");
    expect(approveButton?.web_app?.url).toBe(`${WEBAPP_URL}?step_up=approve.${payoutId}`);
    expect(plainText(shown)).toContain("From 100,000 FCFA, approving takes your PIN");
    const pressed = await approver.pressCallbackData(shown.messageId, `a:${payoutId}`);
    const answer = await emulator.waitForCallbackAnswer(pressed.callbackQueryId);
    expect(answer.text).toContain("This amount needs your PIN to approve");
    const dashboard = await call(APPROVER_ID, "POST", `approvals/${payoutId}/approve`, {});
    expect(dashboard).toEqual({ status: 403, json: { error: "step_up_required" } });
    expect((await app.stores.payouts.get(payoutId))?.state).toBe("awaiting_approval");
    // The payer may not approve their own payout, PIN or not.
    const own = await call(PAYER_ID, "GET", `step-up/approve/${payoutId}`);
    expect(own.status).toBe(403);

    const item = await call(APPROVER_ID, "GET", `step-up/approve/${payoutId}`);
    expect(item).toMatchObject({
      status: 200,
      json: { payout: { amount: 250_000 }, pin: { state: "none" } },
    });
    await call(APPROVER_ID, "POST", "step-up/pin", { pin: "135790", repeat: "135790" });
    const wrong = await call(APPROVER_ID, "POST", `step-up/approve/${payoutId}`, { pin: "123456" });
    expect(wrong).toEqual({ status: 422, json: { error: "wrong_pin", left: 4 } });
    expect(disbursements()).toBe(0);
    const right = await call(APPROVER_ID, "POST", `step-up/approve/${payoutId}`, { pin: "135790" });
    expect(right).toEqual({ status: 200, json: { outcome: "pending", state: "pending" } });
    expect(disbursements()).toBe(1);
    expect(api).toContain("/app/api/");
  });
});

describe("a big payout confirmed with the PIN that waits for approval", () => {
  it("keeps the payer's Withdraw button and the approvers' line, as a chat Confirm does, and Withdraw works", async () => {
    const { emulator, app } = world();
    const approver = emulator.user({ id: APPROVER_ID, firstName: "Aline", languageCode: "en" });
    await sendAndWait(emulator, approver, "/help");
    const { prompt, payoutId } = await bigPrompt(250_000);
    await call(PAYER_ID, "POST", "step-up/pin", { pin: "123456", repeat: "123456" });
    const waiting = emulator.waitForMessage(isPromptReading(prompt, "Waiting for approval"));
    const confirmed = await call(PAYER_ID, "POST", `step-up/confirm/${payoutId}`, {
      pin: "123456",
    });
    expect(confirmed.json).toEqual({ outcome: "approval_requested", state: "awaiting_approval" });
    const shown = await waiting;
    expect(plainText(shown)).toMatch(/Waiting for .*Aline.* to approve it\./);
    expect(flatButtons(shown.replyMarkup).map((button) => button.text)).toEqual([
      "↩️ Withdraw my request",
    ]);
    const payer = emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const withdrawn = emulator.waitForMessage(isPromptReading(prompt, "Withdrawn"));
    await payer.pressButton(shown, 0);
    await withdrawn;
    expect((await app.stores.payouts.get(payoutId))?.state).toBe("cancelled");
    expect(disbursements()).toBe(0);
  });
});

describe("an approval given with the PIN", () => {
  it("edits the approver's own card too: no Approve button left, who approved and what it is now", async () => {
    const { emulator } = world();
    const approver = emulator.user({ id: APPROVER_ID, firstName: "Aline", languageCode: "en" });
    await sendAndWait(emulator, approver, "/help");
    // A number whose payments stay pending: nothing settles to edit the cards afterwards.
    const { payoutId } = await bigPrompt(250_000, "670000003");
    await call(PAYER_ID, "POST", "step-up/pin", { pin: "123456", repeat: "123456" });
    const card = emulator.waitForMessage(
      (message) =>
        message.chatId === APPROVER_ID &&
        flatButtons(message.replyMarkup).some((button) => button.web_app !== undefined),
    );
    await call(PAYER_ID, "POST", `step-up/confirm/${payoutId}`, { pin: "123456" });
    const shown = await card;
    await call(APPROVER_ID, "POST", "step-up/pin", { pin: "135790", repeat: "135790" });
    const approved = await call(APPROVER_ID, "POST", `step-up/approve/${payoutId}`, {
      pin: "135790",
    });
    expect(approved.json).toEqual({ outcome: "pending", state: "pending" });
    await expect
      .poll(() => plainText(emulator.message(APPROVER_ID, shown.messageId) ?? shown))
      .toMatch(/Approved by Aline[\s\S]*Now: ⏳ Pending/);
    expect(emulator.message(APPROVER_ID, shown.messageId)?.replyMarkup ?? []).toHaveLength(0);
  });
});

describe("the PIN before a big approval that repeats another", () => {
  it("answers 409 duplicate with the repeat's time; sent back with the PIN, it approves anyway, and a time in the future does not", async () => {
    const { app } = world();
    await call(PAYER_ID, "POST", "step-up/pin", { pin: "123456", repeat: "123456" });
    await call(APPROVER_ID, "POST", "step-up/pin", { pin: "135790", repeat: "135790" });
    const ids: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const { payoutId } = await bigPrompt(250_000);
      const confirmed = await call(PAYER_ID, "POST", `step-up/confirm/${payoutId}`, {
        pin: "123456",
      });
      expect(confirmed.json).toEqual({ outcome: "approval_requested", state: "awaiting_approval" });
      ids.push(payoutId);
    }
    const [firstId, secondId] = ids;
    const first = await app.stores.payouts.get(firstId ?? "");
    const approve = (body: Record<string, unknown>) =>
      call(APPROVER_ID, "POST", `step-up/approve/${secondId}`, { pin: "135790", ...body });

    const refused = await approve({});
    expect(refused).toEqual({
      status: 409,
      json: { error: "duplicate", duplicateSeenAtMs: first?.createdAtMs },
    });
    const future = await approve({ duplicateSeenAtMs: Date.now() + 3_600_000 });
    expect(future.json.error).toBe("duplicate");
    expect(disbursements()).toBe(0);
    const anyway = await approve({ duplicateSeenAtMs: refused.json.duplicateSeenAtMs });
    expect(anyway).toEqual({ status: 200, json: { outcome: "pending", state: "pending" } });
    expect(disbursements()).toBe(1);
    const decided = (await app.stores.audit.recent(50)).find((entry) => entry.action === "approve");
    expect(decided?.details?.duplicateOf).toBe(firstId);
  });
});

describe("the PIN before a big batch", () => {
  it("opens the Mini App for a big batch's Confirm; a forged chat Confirm moves nothing; the PIN pays the rows", async () => {
    const { emulator, app } = world();
    const payer = emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await call(PAYER_ID, "POST", "step-up/pin", { pin: "123456", repeat: "123456" });
    const preview = emulator.waitForMessage((m) => plainText(m).includes("is checked"), 20_000);
    const file = "phone,amount\n670000001,60000\n690000001,50000\n";
    await payer.uploadDocument("big.csv", "text/csv", Buffer.from(file));
    const shown = await preview;
    const [batch] = await app.stores.batches.list({ limit: 1 });
    const batchId = batch?.id ?? "";
    const buttons = flatButtons(shown.replyMarkup);
    expect(buttons[0]?.text).toBe("🔐 Confirm with PIN");
    expect(buttons[0]?.web_app?.url).toBe(`${WEBAPP_URL}?step_up=batch-confirm.${batchId}`);

    const forged = await payer.pressCallbackData(shown.messageId, `bc:${batchId}`);
    const answer = await emulator.waitForCallbackAnswer(forged.callbackQueryId);
    expect(answer.text).toContain("A batch this large needs your PIN");
    expect((await app.stores.batches.get(batchId))?.state).toBe("ready");

    const item = await call(PAYER_ID, "GET", `step-up/batch-confirm/${batchId}`);
    expect(item).toMatchObject({
      status: 200,
      json: { batch: { id: batchId, fileName: "big.csv", rows: 2, totalXaf: 110_000 } },
    });
    const wrong = await call(PAYER_ID, "POST", `step-up/batch-confirm/${batchId}`, {
      pin: "111111",
    });
    expect(wrong).toEqual({ status: 422, json: { error: "wrong_pin", left: 4 } });
    const right = await call(PAYER_ID, "POST", `step-up/batch-confirm/${batchId}`, {
      pin: "123456",
    });
    expect(right).toEqual({ status: 200, json: { outcome: "done", state: "running" } });
    await expect.poll(() => disbursements(), { timeout: 15_000 }).toBe(2);
  });

  it("takes the PIN once at a big scheduled batch's Confirm: the schedule is made, nothing paid before its run", async () => {
    const { emulator, app } = world();
    const payer = emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await call(PAYER_ID, "POST", "step-up/pin", { pin: "123456", repeat: "123456" });
    const preview = emulator.waitForMessage((m) => plainText(m).includes("is checked"), 20_000);
    const file = "phone,amount\n670000001,60000\n690000001,50000\n";
    await payer.uploadDocument("payroll.csv", "text/csv", Buffer.from(file), "/schedule monthly 1");
    const shown = await preview;
    const [batch] = await app.stores.batches.list({ limit: 1 });
    const batchId = batch?.id ?? "";
    expect(flatButtons(shown.replyMarkup)[0]?.web_app?.url).toBe(
      `${WEBAPP_URL}?step_up=batch-confirm.${batchId}`,
    );
    const forged = await payer.pressCallbackData(shown.messageId, `bc:${batchId}`);
    const answer = await emulator.waitForCallbackAnswer(forged.callbackQueryId);
    expect(answer.text).toContain("A batch this large needs your PIN");
    expect(await app.stores.schedules.list(10)).toEqual([]);

    const wrong = await call(PAYER_ID, "POST", `step-up/batch-confirm/${batchId}`, {
      pin: "111111",
    });
    expect(wrong).toEqual({ status: 422, json: { error: "wrong_pin", left: 4 } });
    expect(await app.stores.schedules.list(10)).toEqual([]);
    const right = await call(PAYER_ID, "POST", `step-up/batch-confirm/${batchId}`, {
      pin: "123456",
    });
    expect(right).toEqual({ status: 200, json: { outcome: "scheduled", state: "scheduled" } });
    const schedules = await app.stores.schedules.list(10);
    expect(schedules.map((schedule) => [schedule.id, schedule.state])).toEqual([
      [batchId, "active"],
    ]);
    // A second right PIN schedules nothing more.
    const again = await call(PAYER_ID, "POST", `step-up/batch-confirm/${batchId}`, {
      pin: "123456",
    });
    expect(again.status).not.toBe(200);
    expect(await app.stores.schedules.list(10)).toHaveLength(1);
    expect(disbursements()).toBe(0);
  });
});
