/**
 * The daily digest end to end: at DIGEST_HOUR (in TIME_ZONE) every admin gets one message
 * with the day's counts and totals by state, the fees, and the payouts that need a person,
 * in their language; exactly one, with two replicas on one Redis prefix and across a
 * restart at that hour. The apps' clock is set to the minutes around 20:00 in the zone.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { type App, startApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config/index.js";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../../../src/logger.js";
import { keys } from "../../../src/store/keys.js";
import { shiftedDayClock } from "../../support/clock.js";
import {
  isNewReplyIn,
  isNewReplyWith,
  payAndConfirm,
  pressAndWait,
  sendAndWait,
  showPrompt,
} from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { testRedis } from "../../support/redis.js";

/**
 * A zone where 19:59 today is still to come, so that the day the apps' clock stands in is the
 * day Redis's own clock stamps the audit entries with (a staff change made now is listed in
 * that day's digest): Douala until 18:00 UTC, then Tokyo (03:00 to 08:59 there).
 */
const ZONE = new Date().getUTCHours() < 18 ? "Africa/Douala" : "Asia/Tokyo";
const SECOND_ADMIN_ID = 1005;
const STAFF = `${ADMIN_ID}:admin,${SECOND_ADMIN_ID}:admin,${PAYER_ID}:payer`;

/** The apps' clock: real time, shifted to a time of day in ZONE (see shiftedDayClock). */
const clock = shiftedDayClock(ZONE);
const { setLocalTime } = clock;
const DAY = clock.day;

setLocalTime(19, 59, 0);
const h = harnessPerTest({
  env: {
    DIGEST_HOUR: "20",
    TIME_ZONE: ZONE,
    STAFF,
    PAYER_DAILY_LIMIT_XAF: "100000",
    MERCHANT_DAILY_LIMIT_XAF: "500000",
  },
  now: clock.now,
});
const replicas: App[] = [];

afterEach(async () => {
  await Promise.all(replicas.splice(0).map((app) => app.stop()));
});

/** Another bot process on the same Redis prefix, the same services and the same clock. */
async function startReplica(): Promise<App> {
  const app = await startApp({
    config: loadConfig(h.env, "start"),
    logger: silentLogger,
    pollTimeoutSeconds: 1,
    loopTickMs: 50,
    http: false,
    now: clock.now,
  });
  replicas.push(app);
  return app;
}

function digestsIn(chatId: number, title: string) {
  return h.emulator.messages(chatId).filter((message) => plainText(message).startsWith(title));
}

describe("the daily digest", () => {
  it("reaches every admin once at DIGEST_HOUR, with two replicas and a restart", async () => {
    setLocalTime(19, 59, 0);
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    // The admins' chats exist (they have written to the bot before).
    h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const french = h.emulator.user({ id: SECOND_ADMIN_ID, firstName: "Éloi", languageCode: "fr" });
    await sendAndWait(h.emulator, french, "/lang fr", isNewReplyIn(SECOND_ADMIN_ID));
    const second = await startReplica();

    await payAndConfirm(h.emulator, payer, "/pay 670000001 5000", "Completed");
    await payAndConfirm(h.emulator, payer, "/pay 670000002 5100", "Failed");
    await payAndConfirm(h.emulator, payer, "/collect 690000001 3000", "Completed");
    const lost = await showPrompt(h.emulator, payer, "/pay 670000001 7000");
    h.sandbox.injectFault({ method: "POST", path: "/disburse", status: 500 });
    await pressAndWait(h.emulator, payer, lost, "Outcome unknown");
    const [unknown] = await h.app.stores.payouts.listInState("unknown");
    // A batch confirmed today and finished (its own flow is batch.test.ts's).
    const batchAtMs = clock.now();
    await h.app.stores.batches.create(
      {
        id: "batchD1",
        state: "done",
        initiatorId: PAYER_ID,
        initiatorRole: "payer",
        chatId: PAYER_ID,
        locale: "en",
        fileName: "couriers.csv",
        rowCount: 4,
        createdAtMs: batchAtMs,
        updatedAtMs: batchAtMs,
        confirmedAtMs: batchAtMs,
        checkedRows: 4,
        doneRows: 4,
        payableRows: 3,
        totalXaf: 4500,
        tally: {
          paid: 2,
          failed: 1,
          pending: 0,
          unknown: 0,
          skipped: 1,
          paidXaf: 3000,
          feesXaf: 30,
        },
      },
      [],
      { id: PAYER_ID, role: "payer" },
    );
    await sleep(300);
    // Before the hour: nothing.
    expect(digestsIn(ADMIN_ID, "📊 Daily summary")).toHaveLength(0);

    const digest = h.emulator.waitForMessage(
      (message) => message.chatId === ADMIN_ID && plainText(message).startsWith("📊"),
    );
    const frenchDigest = h.emulator.waitForMessage(
      (message) => message.chatId === SECOND_ADMIN_ID && plainText(message).startsWith("📊"),
    );
    setLocalTime(20, 0, 5);
    const text = plainText(await digest);
    expect(text).toMatch(
      /^📊 Daily summary: \d{2} \w{3}, 00:00 UTC\+(?:1|9) to \d{2} \w{3}, 20:00 UTC\+(?:1|9)\n/,
    );
    expect(text).toContain(
      [
        "Payouts",
        "✅ Completed: 1 · 5,000 FCFA",
        "❌ Failed: 1 · 5,100 FCFA",
        "⚠️ Outcome unknown: 1 · 7,000 FCFA",
        "Fees: 50 FCFA",
        "",
        "Collections",
        "✅ Completed: 1 · 3,000 FCFA",
        "Fees: 60 FCFA",
        "",
        "⚠️ Need a person (1)",
        "⚠️ Outcome unknown · Payout of 7,000 FCFA to Jean-Paul Mbarga (67• •• •0 01)",
      ].join("\n"),
    );
    expect(text).toContain(`by Paul · ${unknown?.id}`);
    // The day's batches, and the use of each daily limit (a failed payout gave its amount
    // back; the unknown one still counts).
    expect(text).toContain(
      [
        "Batches run",
        "batchD1: 3 payouts, 2 completed · 3,000 FCFA",
        "",
        "Limit use",
        "Everyone: 12,000 FCFA of 500,000 FCFA",
        "Paul: 12,000 FCFA of 100,000 FCFA",
      ].join("\n"),
    );
    const inFrench = plainText(await frenchDigest);
    expect(inFrench).toContain("📊 Bilan du jour\u202F: du ");
    expect(inFrench).toContain("✅ Effectué\u202F: 1 · 5\u202F000\u00A0FCFA");
    expect(inFrench).toContain("⚠️ À vérifier (1)");

    // Every replica's digest round runs many times over; a restart at that hour too. Asked
    // directly, neither replica queues the day again, lease or not.
    await sleep(1000);
    expect(await h.app.reports.digest?.check()).toBe(false);
    expect(await second.reports.digest?.check()).toBe(false);
    await second.stop();
    replicas.splice(replicas.indexOf(second), 1);
    await startReplica();
    await sleep(1000);
    expect(digestsIn(ADMIN_ID, "📊 Daily summary")).toHaveLength(1);
    expect(digestsIn(SECOND_ADMIN_ID, "📊 Bilan du jour")).toHaveLength(1);
    expect(h.emulator.messages(PAYER_ID).filter((m) => plainText(m).startsWith("📊"))).toEqual([]);
    const redis = testRedis();
    try {
      expect(await redis.exists(keys(h.prefix).digestMark(DAY))).toBe(1);
    } finally {
      await redis.quit();
    }
  });

  it("lists the day's staff changes: who, the role before and after, and by whom", async () => {
    setLocalTime(19, 59, 0);
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await sendAndWait(h.emulator, payer, "/help", isNewReplyIn(PAYER_ID));
    // The demotion also brings a staff-change notice to this chat: wait for each reply itself.
    const say = (text: string, reply: string) =>
      sendAndWait(h.emulator, admin, text, isNewReplyWith(ADMIN_ID, reply));
    await say(`/staff add ${PAYER_ID} viewer`, "is now viewer");
    await say("/staff add 2002 approver", "2002 is now approver");
    await say("/staff remove 2002", "2002 is no longer staff");

    // The digest's text (its chart comes first, as a photo with a caption).
    const digest = h.emulator.waitForMessage(
      (message) =>
        message.chatId === ADMIN_ID && !message.photo && plainText(message).startsWith("📊"),
    );
    setLocalTime(20, 0, 5);
    const text = plainText(await digest);
    expect(text).toContain(
      [
        "👥 Staff changes (3)",
        "Paul: payer → viewer, by Awa",
        "user 2002: not staff → approver, by Awa",
        "user 2002: approver → not staff, by Awa",
      ].join("\n"),
    );
  });
});
