/**
 * The Mini App's Schedules and Saved recipients API end to end, against the real app, real
 * Redis, the sandbox and the emulator: schedules made in the chat are listed with their
 * plan; Pause and Resume from the page go through the chat buttons' own step (the owner or
 * an admin, one audit entry each, a second press answered 409 with the state as it is); a
 * viewer's or another payer's forged press gets 403, forged init data 401. The address book
 * is searched and paged, numbers masked; Forget goes through /forget's step.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatedUser, SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import type { AuditEntry } from "../../../src/model/audit.js";
import { type MiniAppUser, tmaHeader } from "../../support/browser.js";
import { pressAndWait, showPrompt } from "../../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  type Harness,
  PAYER_ID,
  startHarness,
  VIEWER_ID,
} from "../../support/harness.js";

let h: Harness;
let pageDir: string;

const PAYER: MiniAppUser = { id: PAYER_ID, firstName: "Paul", languageCode: "en" };
const ADMIN: MiniAppUser = { id: ADMIN_ID, firstName: "Awa", languageCode: "en" };
const VIEWER: MiniAppUser = { id: VIEWER_ID, firstName: "Vera", languageCode: "en" };
const APPROVER: MiniAppUser = { id: APPROVER_ID, firstName: "Ama", languageCode: "en" };

interface ScheduleItem {
  id: string;
  state: string;
  recurrence: { kind: string };
  recipientName: string;
  aliases: string[];
  amount: number;
  ownerId: number;
  nextRuns: number[];
  mayChange: boolean;
}

interface RecipientItem {
  alias: string;
  registeredName: string;
  phone: string;
  lastPaidAtMs?: number;
  mayForget: boolean;
}

beforeAll(async () => {
  // The page itself is tested in the browser; the API needs only that one exists.
  pageDir = mkdtempSync(join(tmpdir(), "schedules-page-"));
  writeFileSync(join(pageDir, "index.html"), "<!doctype html><title>app</title>");
  h = await startHarness({ webAppDir: pageDir, env: { SCHEDULE_REMINDER_HOURS: "0" } });
}, 60_000);

afterAll(async () => {
  await h?.close();
  rmSync(pageDir, { recursive: true, force: true });
});

async function call(
  user: MiniAppUser,
  method: "GET" | "POST",
  path: string,
  authorization = tmaHeader(h.emulator.token, user),
) {
  const response = await fetch(`${h.app.http?.url}/app/api/${path}`, {
    method,
    headers: {
      authorization,
      ...(method === "POST" ? { "content-type": "application/json" } : {}),
    },
    ...(method === "POST" ? { body: "{}" } : {}),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

function chatUser(user: MiniAppUser): EmulatedUser {
  return h.emulator.user({ id: user.id, firstName: user.firstName, languageCode: "en" });
}

/** `/schedule …` as `user`, confirmed in the chat; the schedule's id from its button. */
async function scheduleInChat(user: MiniAppUser, command: string): Promise<string> {
  const chat = chatUser(user);
  const prompt: SentMessage = await showPrompt(h.emulator, chat, command);
  const data = prompt.replyMarkup?.[0]?.[0]?.callback_data ?? "";
  await pressAndWait(h.emulator, chat, prompt, "Active");
  return data.replace(/^sc:/, "");
}

async function scheduleAudit(id: string): Promise<AuditEntry[]> {
  return (await h.app.stores.audit.recent(200)).filter((entry) => entry.details?.scheduleId === id);
}

async function listed(user: MiniAppUser): Promise<ScheduleItem[]> {
  const answer = await call(user, "GET", "schedules");
  expect(answer.status).toBe(200);
  return answer.json.items as ScheduleItem[];
}

describe("the Mini App's schedules", () => {
  let paulsId = "";
  let awasId = "";

  it("lists the schedules made in the chat with their plan, next runs and who may change them", async () => {
    paulsId = await scheduleInChat(PAYER, "/schedule weekly fri 670000001 5000 rent");
    awasId = await scheduleInChat(ADMIN, "/schedule monthly 28 690000001 7000");

    const mine = await listed(PAYER);
    expect(mine.map((item) => item.id)).toEqual([paulsId]);
    expect(mine[0]).toMatchObject({
      state: "active",
      recurrence: { kind: "weekly", weekday: 5 },
      recipientName: "Jean-Paul Mbarga",
      amount: 5000,
      ownerId: PAYER_ID,
      mayChange: true,
    });
    expect(mine[0]?.nextRuns).toHaveLength(3);
    const [first = 0, second = 0] = mine[0]?.nextRuns ?? [];
    expect(second - first).toBe(7 * 86_400_000);

    // Those who see everyone's see both; only an admin may change another's.
    const byAdmin = await listed(ADMIN);
    expect(byAdmin.map((item) => [item.id, item.mayChange]).sort()).toEqual(
      [
        [paulsId, true],
        [awasId, true],
      ].sort(),
    );
    const byViewer = await listed(VIEWER);
    expect(byViewer.map((item) => item.mayChange)).toEqual([false, false]);
    const answer = await call(ADMIN, "GET", "schedules");
    expect(answer.json.names).toMatchObject({ [String(PAYER_ID)]: "Paul" });
    expect(answer.json.timeZone).toBe("Africa/Douala");
  });

  it("pauses and resumes through the chat's step: one audit entry each, a second press 409", async () => {
    const before = await scheduleAudit(paulsId);

    const paused = await call(PAYER, "POST", `schedules/${paulsId}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.json).toMatchObject({ outcome: "done", schedule: { state: "paused" } });
    expect((await h.app.stores.schedules.get(paulsId))?.state).toBe("paused");

    const again = await call(PAYER, "POST", `schedules/${paulsId}/pause`);
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ error: "already", schedule: { state: "paused" } });

    const resumed = await call(PAYER, "POST", `schedules/${paulsId}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.json).toMatchObject({ outcome: "done", schedule: { state: "active" } });
    const resumedAgain = await call(PAYER, "POST", `schedules/${paulsId}/resume`);
    expect(resumedAgain.status).toBe(409);

    const after = await scheduleAudit(paulsId);
    const added = after.slice(0, after.length - before.length);
    const actions = added.map((entry) => entry.action).sort();
    expect(actions).toEqual(["schedule_pause", "schedule_resume"]);
    expect(added.every((entry) => entry.actorId === PAYER_ID)).toBe(true);
  });

  it("lets an admin pause another's schedule, and refuses a viewer's or another payer's press with 403", async () => {
    const byViewer = await call(VIEWER, "POST", `schedules/${paulsId}/pause`);
    expect(byViewer.status).toBe(403);
    // An approver is not its owner and not an admin: refused as in the chat.
    const byApprover = await call(APPROVER, "POST", `schedules/${paulsId}/delete`);
    expect(byApprover.status).toBe(403);
    const byPayer = await call(PAYER, "POST", `schedules/${awasId}/pause`);
    expect(byPayer.status).toBe(403);
    expect((await h.app.stores.schedules.get(paulsId))?.state).toBe("active");
    expect((await h.app.stores.schedules.get(awasId))?.state).toBe("active");

    const byAdmin = await call(ADMIN, "POST", `schedules/${paulsId}/pause`);
    expect(byAdmin.status).toBe(200);
    const [entry] = await scheduleAudit(paulsId);
    expect(entry).toMatchObject({ action: "schedule_pause", actorId: ADMIN_ID });
  });

  it("takes one of many presses at once: one 200, the rest 409, one audit entry", async () => {
    const before = (await scheduleAudit(paulsId)).length;
    // The admin paused it (the previous test): its owner may not lift that pause.
    const byOwner = await call(PAYER, "POST", `schedules/${paulsId}/resume`);
    expect(byOwner).toEqual({ status: 403, json: { error: "paused_by_staff" } });
    const presses = await Promise.all(
      Array.from({ length: 12 }, () => call(ADMIN, "POST", `schedules/${paulsId}/resume`)),
    );
    const statuses = presses.map((press) => press.status).sort();
    expect(statuses).toEqual([200, ...Array<number>(11).fill(409)]);
    // The previous test left it paused: one of these presses resumes it.
    const after = await scheduleAudit(paulsId);
    const added = after.slice(0, after.length - before);
    expect(added.map((entry) => entry.action)).toEqual(["schedule_resume"]);
    expect((await h.app.stores.schedules.get(paulsId))?.state).toBe("active");
  });

  it("refuses forged init data with 401 and changes nothing; an unknown schedule is 404", async () => {
    const forged = tmaHeader("123456789:AAForgedTokenForgedTokenForged000", ADMIN);
    const answer = await call(ADMIN, "POST", `schedules/${awasId}/pause`, forged);
    expect(answer.status).toBe(401);
    expect((await call(ADMIN, "GET", "schedules", "tma nonsense")).status).toBe(401);
    expect((await h.app.stores.schedules.get(awasId))?.state).toBe("active");
    expect((await call(ADMIN, "POST", "schedules/nosuchsched/pause")).status).toBe(404);
  });

  it("deletes one: it leaves the list", async () => {
    const deleted = await call(ADMIN, "POST", `schedules/${awasId}/delete`);
    expect(deleted.status).toBe(200);
    expect((await listed(ADMIN)).map((item) => item.id)).toEqual([paulsId]);
    expect((await call(ADMIN, "POST", `schedules/${awasId}/delete`)).status).toBe(409);
  });
});

describe("the Mini App's saved recipients", () => {
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

  it("lists, searches by alias or name and pages, numbers masked", async () => {
    await save(PAYER, "/save Jean 670000001");
    await save(PAYER, "/save Aïcha 690000001");
    await save(ADMIN, "/save boss 670000002");

    const all = await call(VIEWER, "GET", "recipients");
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ total: 3, page: 0, pageSize: 20 });
    const items = all.json.items as RecipientItem[];
    expect(items.map((item) => item.alias)).toEqual(["Aïcha", "boss", "Jean"]);
    expect(items[2]).toMatchObject({ registeredName: "Jean-Paul Mbarga", mayForget: false });
    // Masked as the bot's /recipients masks a number: the prefix and the last three digits.
    for (const item of items) expect(item.phone).toMatch(/^\d\d• •• •\d \d\d$/);
    expect(JSON.stringify(all.json)).not.toContain("670000001");

    // By a word of the registered name, and by an alias without its accent.
    const byName = await call(PAYER, "GET", `recipients?q=${encodeURIComponent("mbarga")}`);
    expect((byName.json.items as RecipientItem[]).map((item) => item.alias)).toEqual(["Jean"]);
    const byAlias = await call(PAYER, "GET", "recipients?q=AICHA");
    expect((byAlias.json.items as RecipientItem[]).map((item) => item.alias)).toEqual(["Aïcha"]);
    // The payer may forget what they saved, not the admin's entry.
    const forPayer = (await call(PAYER, "GET", "recipients")).json.items as RecipientItem[];
    expect(forPayer.map((item) => item.mayForget)).toEqual([true, false, true]);
    // A page past the end answers the last one.
    const far = await call(PAYER, "GET", "recipients?page=7");
    expect(far.json).toMatchObject({ page: 0, total: 3 });
    expect((await call(PAYER, "GET", "recipients?page=-1")).status).toBe(400);
  });

  it("forgets through /forget's step: the saver or an admin, audited; a viewer gets 403", async () => {
    expect((await call(VIEWER, "POST", "recipients/Jean/forget")).status).toBe(403);
    expect((await call(PAYER, "POST", "recipients/boss/forget")).status).toBe(403);
    expect(await h.app.stores.recipients.get("jean")).not.toBeNull();

    const forgotten = await call(PAYER, "POST", `recipients/${encodeURIComponent("Aïcha")}/forget`);
    expect(forgotten).toMatchObject({
      status: 200,
      json: { outcome: "forgotten", alias: "Aïcha" },
    });
    expect(await h.app.stores.recipients.get("aicha")).toBeNull();
    const [entry] = await h.app.stores.audit.recent(1);
    expect(entry).toMatchObject({ action: "recipient_forgotten", actorId: PAYER_ID });
    expect((await call(PAYER, "POST", "recipients/aicha/forget")).status).toBe(404);

    expect((await call(ADMIN, "POST", "recipients/Jean/forget")).status).toBe(200);
    expect((await call(PAYER, "GET", "recipients")).json.total).toBe(1);
  });
});
