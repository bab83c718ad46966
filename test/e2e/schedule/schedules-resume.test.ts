/**
 * Resume is a decision to pay again. A pause by an admin (or an approver) is lifted only by
 * an admin or an approver: the review's case, the admin paused, the payer pressed Resume,
 * the run paid. And a schedule at or over the approval threshold goes back to an approver
 * on Resume: nothing is sent until one approves; a rejection leaves it paused. The apps'
 * clock is real time shifted forward.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { tmaHeader } from "../../support/browser.js";
import { isPromptIn, pressAndWait, sendAndWait, showPrompt } from "../../support/flows.js";
import { ADMIN_ID, APPROVER_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";
import { dayAhead, movedClock, ZONE } from "../../support/schedules.js";

// The page itself is the Mini App's (its own tests); the API needs only that one exists.
const pageDir = mkdtempSync(join(tmpdir(), "schedules-resume-page-"));
writeFileSync(join(pageDir, "index.html"), "<!doctype html><title>app</title>");
afterAll(() => rmSync(pageDir, { recursive: true, force: true }));

const clock = movedClock();
const h = harnessPerTest({
  env: { TIME_ZONE: ZONE, APPROVAL_THRESHOLD_XAF: "100000", SCHEDULE_REMINDER_HOURS: "0" },
  now: clock.now,
  webAppDir: pageDir,
});
const disbursements = () => h.sandbox.countRequests({ method: "POST", path: "/disburse" });

const WORDS = {
  en: {
    pause: "⏸ Pause",
    resume: "▶️ Resume",
    paused: "Paused",
    active: "Active",
    staffOnly: "only an admin or an approver can resume it",
    newDecision: "resuming is a new decision",
    waiting: "Waiting for approval",
  },
  fr: {
    pause: "⏸ Mettre en pause",
    resume: "▶️ Reprendre",
    paused: "En pause",
    active: "Activée",
    staffOnly: "seul un administrateur ou un approbateur peut la reprendre",
    newDecision: "reprendre est une nouvelle décision",
    waiting: "attente",
  },
} as const;

describe("Resume of a schedule an admin paused", () => {
  for (const language of ["en", "fr"] as const) {
    const words = WORDS[language];
    it(`is refused to its owner, and the run is not paid; an admin may lift it (${language})`, async () => {
      const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: language });
      const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: language });
      const prompt = await showPrompt(h.emulator, payer, "/schedule weekly mon 670000001 5000");
      await payer.pressButton(prompt, 0);
      await sleep(300);
      const [made] = await h.app.stores.schedules.list(5);
      const runAtMs = made?.nextRunAtMs ?? 0;
      expect(made?.state).toBe("active");
      const item = await sendAndWait(h.emulator, admin, "/schedules", isPromptIn(ADMIN_ID));
      await pressAndWait(h.emulator, admin, item, words.paused, { button: words.pause });

      const own = await sendAndWait(h.emulator, payer, "/schedules", isPromptIn(PAYER_ID));
      expect(plainText(own)).toContain(words.staffOnly);
      const pressed = await payer.pressButton(own, words.resume);
      const answer = await h.emulator.waitForCallbackAnswer(pressed.callbackQueryId);
      expect(answer.text).toContain(words.staffOnly);
      const [schedule] = await h.app.stores.schedules.list(5);
      expect(schedule?.state).toBe("paused");
      // The page's Resume is the same step: refused the same way, with its reason.
      const page = await fetch(`${h.app.http?.url}/app/api/schedules/${schedule?.id}/resume`, {
        method: "POST",
        headers: {
          authorization: tmaHeader(h.emulator.token, {
            id: PAYER_ID,
            firstName: "Paul",
            languageCode: language,
          }),
          "content-type": "application/json",
        },
        body: "{}",
      });
      expect({ status: page.status, json: await page.json() }).toEqual({
        status: 403,
        json: { error: "paused_by_staff" },
      });

      clock.moveTo(runAtMs + 1_000);
      await sleep(1_500);
      expect(disbursements()).toBe(0);
      expect((await h.app.stores.schedules.get(schedule?.id ?? ""))?.state).toBe("paused");

      const again = await sendAndWait(h.emulator, admin, "/schedules", isPromptIn(ADMIN_ID));
      await pressAndWait(h.emulator, admin, again, words.active, { button: words.resume });
      expect((await h.app.stores.schedules.get(schedule?.id ?? ""))?.state).not.toBe("paused");
    });
  }
});

describe("Resume of a schedule at or over the approval threshold", () => {
  for (const language of ["en", "fr"] as const) {
    const words = WORDS[language];
    it(`waits for an approver again and sends nothing until then (${language})`, async () => {
      const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: language });
      const approver = h.emulator.user({
        id: APPROVER_ID,
        firstName: "Ada",
        languageCode: language,
      });
      const run = dayAhead(1, "09:00");
      const firstCard = h.emulator.waitForMessage(
        (message) => message.chatId === APPROVER_ID && (message.replyMarkup?.length ?? 0) > 0,
        10_000,
      );
      const prompt = await showPrompt(
        h.emulator,
        payer,
        `/schedule ${run.date} 09:00 670000001 150000`,
      );
      await payer.pressButton(prompt, 0);
      const card = await firstCard;
      await pressAndWait(h.emulator, approver, card, (m) => m.messageId === card.messageId);
      const [schedule] = await h.app.stores.schedules.list(5);
      const id = schedule?.id ?? "";
      expect(schedule?.state).toBe("active");

      const item = await sendAndWait(h.emulator, payer, "/schedules", isPromptIn(PAYER_ID));
      const paused = await pressAndWait(h.emulator, payer, item, words.paused, {
        button: words.pause,
      });
      const secondCard = h.emulator.waitForMessage(
        (message) =>
          message.chatId === APPROVER_ID &&
          message.messageId !== card.messageId &&
          (message.replyMarkup?.length ?? 0) > 0,
        10_000,
      );
      const pressed = await payer.pressButton(paused, words.resume);
      const answer = await h.emulator.waitForCallbackAnswer(pressed.callbackQueryId);
      expect(answer.text).toContain(words.newDecision);
      expect((await h.app.stores.schedules.get(id))?.state).toBe("awaiting_approval");
      const again = await secondCard;
      expect(plainText(again)).toContain("Jean-Paul Mbarga");

      clock.moveTo(run.atMs + 1_000);
      await sleep(1_500);
      expect(disbursements()).toBe(0);

      // Rejected: paused again, as it was (not ended).
      await pressAndWait(h.emulator, approver, again, (m) => m.messageId === again.messageId, {
        button: 1,
      });
      expect((await h.app.stores.schedules.get(id))?.state).toBe("paused");
      expect(disbursements()).toBe(0);
      const actions = (await h.app.stores.audit.recent(30)).map((entry) => entry.action);
      expect(actions).toEqual(expect.arrayContaining(["schedule_request_approval"]));
      expect(actions).not.toContain("schedule_resume");
    });
  }
});
