import { sign } from "@telegram-apps/init-data-node";
import { describe, expect, it } from "vitest";
import {
  type EmulatedUser,
  plainText,
  type SentMessage,
} from "../../../src/dev/telegram-emulator/index.js";
import { PIN_LOCK_MS } from "../../../src/model/pin.js";
import { runPinReset } from "../../../src/pin-reset-command.js";
import { type ApiWorld, apiWorldPerTest } from "../../support/api-world.js";
import { isNewReplyWith, isPromptIn, sendAndWait } from "../../support/flows.js";
import { ADMIN_ID, PAYER_ID } from "../../support/harness.js";
import { movedClock } from "../../support/schedules.js";

/** A second admin (English, with markup in their name) and a third (French). */
const SECOND_ADMIN_ID = 1005;
const THIRD_ADMIN_ID = 1006;
const SECOND_ADMIN_NAME = "Bob <i>&";

const clock = movedClock();

type World = ApiWorld;

/** The bot with STAFF from `admins` (ids) beside the payer. */
function worldWith(admins: number[]) {
  const staff = [...admins.map((id) => `${id}:admin`), `${PAYER_ID}:payer`].join(",");
  return apiWorldPerTest(
    "pin-rules",
    { STEP_UP_THRESHOLD_XAF: "100000", STAFF: staff },
    { now: clock.now },
  );
}

/** A Mini App API call as `userId`, with init data signed by the bot token at `signedAtMs`. */
async function call(
  w: World,
  userId: number,
  path: string,
  body?: unknown,
  signedAtMs = clock.now(),
): Promise<{ status: number; json: Record<string, unknown> }> {
  const initData = sign(
    { user: { id: userId, first_name: "X", language_code: "en" }, query_id: "q" },
    w.emulator.token,
    new Date(signedAtMs),
  );
  const response = await fetch(`${w.api}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      authorization: `tma ${initData}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** `/pay` of `amount` (at or over the threshold) as `user`: the payout's id from its button. */
async function bigPayout(w: World, user: EmulatedUser, amount: number): Promise<string> {
  const prompt = await sendAndWait(
    w.emulator,
    user,
    `/pay 670000001 ${amount}`,
    isPromptIn(user.id),
  );
  const button = (prompt.replyMarkup ?? []).flat().find((each) => each.web_app);
  const opened = new URL(button?.web_app?.url ?? "https://x.invalid/");
  return (opened.searchParams.get("step_up") ?? "").replace(/^confirm\./, "");
}

/** The next new message to `chatId` that contains `text`. */
function next(w: World, chatId: number, text: string): Promise<SentMessage> {
  return w.emulator.waitForMessage(isNewReplyWith(chatId, text));
}

const disbursements = (w: World) => w.sandbox.countRequests({ method: "POST", path: "/disburse" });

describe("a PIN reset", () => {
  const world = worldWith([ADMIN_ID, SECOND_ADMIN_ID, THIRD_ADMIN_ID]);

  it("is refused for an admin's own PIN; another admin's keeps the lock, tells everyone, and the new PIN needs fresh init data", async () => {
    const w = world();
    const awa = w.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "fr" });
    const bob = w.emulator.user({ id: SECOND_ADMIN_ID, firstName: SECOND_ADMIN_NAME });
    const chloe = w.emulator.user({ id: THIRD_ADMIN_ID, firstName: "Chloé", languageCode: "fr" });
    for (const user of [awa, bob, chloe]) await sendAndWait(w.emulator, user, "/help");

    // The review's steps: Awa's session guesses six wrong PINs (locked), then resets it.
    const payoutId = await bigPayout(w, awa, 150_000);
    expect(await call(w, ADMIN_ID, "step-up/pin", { pin: "123456", repeat: "123456" })).toEqual({
      status: 201,
      json: { outcome: "set" },
    });
    const answers = [];
    for (let i = 0; i < 6; i += 1) {
      answers.push(await call(w, ADMIN_ID, `step-up/confirm/${payoutId}`, { pin: "999999" }));
    }
    expect(answers.map((answer) => answer.status)).toEqual([422, 422, 422, 422, 423, 423]);
    const lockedAtMs = clock.now();

    const ownFr = await sendAndWait(
      w.emulator,
      awa,
      `/pin reset ${ADMIN_ID}`,
      isNewReplyWith(ADMIN_ID, "Vous ne pouvez pas"),
    );
    expect(plainText(ownFr)).toBe(
      `Vous ne pouvez pas réinitialiser votre propre code PIN\u202f: un autre administrateur le fait avec /pin reset ${ADMIN_ID}. Si vous êtes le seul administrateur, réinitialisez-le depuis la console du serveur\u202f: npm run pin-reset ${ADMIN_ID}.`,
    );
    const ownEn = await sendAndWait(
      w.emulator,
      bob,
      `/pin reset ${SECOND_ADMIN_ID}`,
      isNewReplyWith(SECOND_ADMIN_ID, "You cannot reset"),
    );
    expect(plainText(ownEn)).toBe(
      `You cannot reset your own PIN: another admin resets it with /pin reset ${SECOND_ADMIN_ID}. If you are the only admin, reset it on the server's console: npm run pin-reset ${SECOND_ADMIN_ID}.`,
    );
    // Nothing was reset: still locked, no new PIN can be set, nothing paid.
    expect((await call(w, ADMIN_ID, `step-up/confirm/${payoutId}`)).json.pin).toMatchObject({
      state: "locked",
    });
    const refusedSet = await call(w, ADMIN_ID, "step-up/pin", { pin: "111111", repeat: "111111" });
    expect(refusedSet.status).toBe(409);
    expect(disbursements(w)).toBe(0);
    expect((await w.app.stores.audit.recent(50)).map((e) => e.action)).not.toContain("pin_reset");

    // Another admin resets it near the lock's end: Awa and every admin are told, by name.
    clock.moveTo(lockedAtMs + PIN_LOCK_MS - 120_000);
    const resetAtMs = clock.now();
    const toAwa = next(w, ADMIN_ID, "Votre code PIN a été réinitialisé");
    const toChloe = next(w, THIRD_ADMIN_ID, "Code PIN réinitialisé");
    const toBob = next(w, SECOND_ADMIN_ID, "PIN reset:");
    const reply = await sendAndWait(
      w.emulator,
      bob,
      `/pin reset ${ADMIN_ID}`,
      isNewReplyWith(SECOND_ADMIN_ID, "PIN of Awa reset"),
    );
    expect(plainText(reply)).toMatch(
      /^PIN of Awa reset: they set a new one the next time a Confirm asks for it\.\nTheir PIN stays locked until .+: a reset does not lift a lock\.$/,
    );
    const awaTold = await toAwa;
    expect(plainText(awaTold)).toBe(
      `🔐 Votre code PIN a été réinitialisé par ${SECOND_ADMIN_NAME}. Vous en définirez un nouveau dans l’application la prochaine fois qu’une confirmation le demandera. Si vous ne l’avez pas demandé, prévenez tout de suite un autre administrateur.`,
    );
    // The name is escaped in the HTML that was sent.
    expect(awaTold.text).toContain("par Bob &lt;i&gt;&amp;.");
    expect(plainText(await toChloe)).toBe(
      `🔐 Code PIN réinitialisé\u202f: Awa (id ${ADMIN_ID}), par ${SECOND_ADMIN_NAME}. Un message vous le dira quand cette personne en définira un nouveau.`,
    );
    expect(plainText(await toBob)).toBe(
      `🔐 PIN reset: ${SECOND_ADMIN_NAME} reset the PIN of Awa (id ${ADMIN_ID}). You will be told when they set a new one.`,
    );
    const reset = (await w.app.stores.audit.recent(50)).find((e) => e.action === "pin_reset");
    expect(reset).toMatchObject({ actorId: SECOND_ADMIN_ID, details: { userId: ADMIN_ID } });

    // The lock holds on through the reset.
    const whileLocked = await call(w, ADMIN_ID, "step-up/pin", { pin: "246810", repeat: "246810" });
    expect(whileLocked).toMatchObject({ status: 423, json: { error: "pin_locked" } });
    const status = await sendAndWait(
      w.emulator,
      awa,
      "/pin",
      isNewReplyWith(ADMIN_ID, "Votre code PIN est"),
    );
    expect(plainText(status)).toMatch(
      /^Votre code PIN est bloqué jusqu’au .+ \(trop d’essais erronés\)\./,
    );

    // Once it has passed, init data signed before the reset sets no PIN; fresh init data does.
    clock.moveTo(lockedAtMs + PIN_LOCK_MS + 1_000);
    const signedBefore = resetAtMs - 60_000;
    const stale = await call(
      w,
      ADMIN_ID,
      "step-up/pin",
      { pin: "246810", repeat: "246810" },
      signedBefore,
    );
    expect(stale).toEqual({ status: 401, json: { error: "unauthorized", reason: "pin_stale" } });
    const renewedToBob = next(w, SECOND_ADMIN_ID, "New PIN");
    const renewedToChloe = next(w, THIRD_ADMIN_ID, "Nouveau code PIN");
    expect(await call(w, ADMIN_ID, "step-up/pin", { pin: "246810", repeat: "246810" })).toEqual({
      status: 201,
      json: { outcome: "set" },
    });
    expect(plainText(await renewedToBob)).toBe(
      `🔐 New PIN: Awa (id ${ADMIN_ID}) set a new PIN, the first since it was reset. If that was not them, take their role away with /staff.`,
    );
    expect(plainText(await renewedToChloe)).toBe(
      `🔐 Nouveau code PIN\u202f: Awa (id ${ADMIN_ID}) a défini un nouveau code PIN, le premier depuis sa réinitialisation. Si ce n’était pas cette personne, retirez-lui son rôle avec /staff.`,
    );
    // Awa pays with the new PIN: one POST.
    const fresh = await bigPayout(w, awa, 150_001);
    const paid = await call(w, ADMIN_ID, `step-up/confirm/${fresh}`, { pin: "246810" });
    expect(paid.json).toMatchObject({ outcome: "pending" });
    expect(disbursements(w)).toBe(1);
  });
});

describe("a PIN reset on the server's console", () => {
  const world = worldWith([ADMIN_ID]);

  it("resets a sole admin's own PIN, tells them in the chat, and is audited", async () => {
    const w = world();
    const awa = w.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const paul = w.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "fr" });
    await sendAndWait(w.emulator, awa, "/help");
    await sendAndWait(w.emulator, paul, "/help");
    await call(w, ADMIN_ID, "step-up/pin", { pin: "123456", repeat: "123456" });
    await call(w, PAYER_ID, "step-up/pin", { pin: "123456", repeat: "123456" });
    // In the chat, the sole admin has no one to reset theirs.
    const own = await sendAndWait(
      w.emulator,
      awa,
      `/pin reset ${ADMIN_ID}`,
      isNewReplyWith(ADMIN_ID, "own PIN"),
    );
    expect(plainText(own)).toContain("You cannot reset your own PIN");

    const toAwa = next(w, ADMIN_ID, "Your PIN was reset");
    const done = await runPinReset(w.env, [String(ADMIN_ID)]);
    expect(done).toEqual({
      exitCode: 0,
      message: `PIN of user ${ADMIN_ID} reset. They and every admin are told in the chat; they set a new one in the Mini App the next time a Confirm asks for it.`,
    });
    expect(plainText(await toAwa)).toBe(
      "🔐 Your PIN was reset by the server's console (pin-reset). You set a new one in the app the next time a Confirm asks for it. If you did not ask for this, tell another admin at once.",
    );
    // The payer's, in French; the admin reads it in English.
    const toPaul = next(w, PAYER_ID, "Votre code PIN a été réinitialisé");
    const toAdmin = next(w, ADMIN_ID, "PIN reset:");
    await runPinReset(w.env, [String(PAYER_ID)]);
    expect(plainText(await toPaul)).toContain(
      "réinitialisé par la console du serveur (pin-reset).",
    );
    expect(plainText(await toAdmin)).toBe(
      `🔐 PIN reset: the server's console (pin-reset) reset the PIN of Paul (id ${PAYER_ID}). You will be told when they set a new one.`,
    );
    const resets = (await w.app.stores.audit.recent(50)).filter((e) => e.action === "pin_reset");
    expect(resets.map((entry) => [entry.actorRole, entry.details?.userId])).toEqual(
      expect.arrayContaining([
        ["system", ADMIN_ID],
        ["system", PAYER_ID],
      ]),
    );
    expect(await runPinReset(w.env, [String(PAYER_ID)])).toEqual({
      exitCode: 0,
      message: `User ${PAYER_ID} has no PIN set: nothing to reset.`,
    });
    expect(await runPinReset(w.env, ["me"])).toMatchObject({ exitCode: 2 });
  });
});

describe("wrong PIN tries", () => {
  const world = worldWith([ADMIN_ID]);

  it("lock at ten within 24 hours though never five in a row, and are told at the next right one", async () => {
    const w = world();
    const awa = w.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const paul = w.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await sendAndWait(w.emulator, awa, "/help");
    await call(w, PAYER_ID, "step-up/pin", { pin: "123456", repeat: "123456" });
    const wrongs = async (payoutId: string, count: number) => {
      const answers = [];
      for (let i = 0; i < count; i += 1) {
        answers.push(await call(w, PAYER_ID, `step-up/confirm/${payoutId}`, { pin: "999999" }));
      }
      return answers.map((answer) => answer.status);
    };

    // Four guesses, then Paul's own right entry: paid, and he hears of the four.
    const first = await bigPayout(w, paul, 150_000);
    expect(await wrongs(first, 4)).toEqual([422, 422, 422, 422]);
    const toldEn = next(w, PAYER_ID, "Wrong PINs on your account");
    const right = await call(w, PAYER_ID, `step-up/confirm/${first}`, { pin: "123456" });
    expect(right.json).toMatchObject({ outcome: "pending" });
    expect(plainText(await toldEn)).toMatch(
      /^⚠️ Wrong PINs on your account: 4 wrong PINs were typed before this right one, the last at .+\. If that was not you, tell an admin: your Telegram account may be in other hands\.$/,
    );

    // Again, in French now.
    await sendAndWait(w.emulator, paul, "/lang fr");
    const second = await bigPayout(w, paul, 150_001);
    expect(await wrongs(second, 4)).toEqual([422, 422, 422, 422]);
    const toldFr = next(w, PAYER_ID, "Codes PIN erronés sur votre compte");
    expect((await call(w, PAYER_ID, `step-up/confirm/${second}`, { pin: "123456" })).status).toBe(
      200,
    );
    expect(plainText(await toldFr)).toMatch(
      /^⚠️ Codes PIN erronés sur votre compte\u202f: 4 codes PIN erronés ont été saisis avant ce bon code, le dernier le .+\. Si ce n’était pas vous, prévenez un administrateur\u202f: votre compte Telegram est peut-être entre d’autres mains\.$/,
    );

    // Two more make ten within 24 hours: locked, and the admins alerted.
    const third = await bigPayout(w, paul, 150_002);
    const alert = next(w, ADMIN_ID, "PIN locked");
    const last = [];
    for (let i = 0; i < 2; i += 1) {
      last.push(await call(w, PAYER_ID, `step-up/confirm/${third}`, { pin: "999999" }));
    }
    expect(last[0]).toEqual({ status: 422, json: { error: "wrong_pin", left: 1 } });
    expect(last[1]).toMatchObject({ status: 423, json: { error: "pin_locked" } });
    expect(await call(w, PAYER_ID, `step-up/confirm/${third}`, { pin: "123456" })).toMatchObject({
      status: 423,
    });
    expect(plainText(await alert)).toContain(
      `Paul (id ${PAYER_ID}) typed too many wrong PINs (five in a row, or ten within 24 hours)`,
    );
    expect(disbursements(w)).toBe(2);
  });
});
