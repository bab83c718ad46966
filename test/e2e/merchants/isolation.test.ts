/**
 * Isolation between merchants is a non-negotiable like exactly-once: a person, a button, a
 * payment callback or a Mini App request acting for Alpha never reads or moves Bravo's data.
 * One sandbox holds both businesses' accounts (a payment of one is not found with the
 * other's key, as on the real API).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import type { Payout } from "../../../src/model/payout.js";
import { type MiniAppUser, tmaHeader } from "../../support/browser.js";
import { isPromptIn, isPromptReading, sendAndWait } from "../../support/flows.js";
import {
  ADA,
  BEA,
  KEY_A,
  KEY_B,
  type MerchantsHarness,
  MO,
  PAUL,
  startMerchantsHarness,
  storesOf,
  VIC,
} from "./merchants-harness.js";

let h: MerchantsHarness;
let pageDir: string;

beforeAll(async () => {
  pageDir = mkdtempSync(join(tmpdir(), "merchants-page-"));
  writeFileSync(join(pageDir, "index.html"), "<!doctype html><title>app</title>");
  h = await startMerchantsHarness({
    webAppDir: pageDir,
    extra: { alpha: { approvalThresholdXaf: 100_000 } },
  });
}, 60_000);

afterAll(async () => {
  await h?.close();
  rmSync(pageDir, { recursive: true, force: true });
});

/** `userId` pays `command` in the merchant they act for, and resolves with the stored payout. */
async function payFor(userId: number, command: string, merchant: string): Promise<Payout> {
  const user = h.emulator.user({ id: userId, firstName: `U${userId}`, languageCode: "en" });
  const prompt = await sendAndWait(h.emulator, user, command, isPromptIn(userId));
  const pending = h.emulator.waitForMessage(isPromptReading(prompt, "Pending"), 10_000);
  await user.pressButton(prompt, 0);
  await pending;
  const { items } = await storesOf(h, merchant).payouts.list({ userId, offset: 0, limit: 1 });
  const payout = items[0];
  if (!payout) throw new Error("no payout stored");
  return payout;
}

async function switchTo(userId: number, index: number, name: string): Promise<void> {
  const user = h.emulator.user({ id: userId, firstName: `U${userId}`, languageCode: "en" });
  const list = await sendAndWait(h.emulator, user, "/merchant", isPromptIn(userId));
  const switched = h.emulator.waitForMessage(isPromptReading(list, `now act for ${name}`));
  await user.pressButton(list, index);
  await switched;
}

async function miniApp(user: MiniAppUser, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${h.app.http?.url}/app/api/${path}`, {
    method: path.startsWith("history/csv/link") ? "POST" : "GET",
    headers: { authorization: tmaHeader(h.emulator.token, user), ...headers },
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe("isolation between merchants", () => {
  let alphaPayout: Payout;
  let bravoPayout: Payout;

  beforeAll(async () => {
    alphaPayout = await payFor(ADA, "/pay 237670000001 5000", "alpha");
    bravoPayout = await payFor(BEA, "/pay 237670000002 7777", "bravo");
  }, 30_000);

  it("keeps each merchant's payouts under its own keys, made with its own API key", async () => {
    expect(await storesOf(h, "bravo").payouts.get(alphaPayout.id)).toBeNull();
    expect(await storesOf(h, "alpha").payouts.get(bravoPayout.id)).toBeNull();
    const disburses = h.sandbox.requests.filter((r) => r.path === "/disburse");
    expect(disburses.map((r) => r.apiKey)).toEqual([KEY_A, KEY_B]);
  });

  it("answers a viewer of Alpha given a payout id or payment id of Bravo with not found, and shows Alpha's history only", async () => {
    const vic = h.emulator.user({ id: VIC, firstName: "Vic", languageCode: "en" });
    const byId = await sendAndWait(h.emulator, vic, `/status ${bravoPayout.id}`);
    expect(plainText(byId)).toContain("No payment with id");
    const paymentId = (await storesOf(h, "bravo").payouts.get(bravoPayout.id))?.paymentId;
    expect(paymentId).toBeTruthy();
    const byPayment = await sendAndWait(h.emulator, vic, `/status ${paymentId}`);
    expect(plainText(byPayment)).toContain("No payment with id");
    expect(plainText(byPayment)).not.toContain("7,777");
    const history = await sendAndWait(h.emulator, vic, "/history");
    expect(plainText(history)).toContain("5,000");
    expect(plainText(history)).not.toContain("7,777");
  });

  it("shows the Mini App of the merchant the person acts for only: another's payout is not found", async () => {
    const vic: MiniAppUser = { id: VIC, firstName: "Vic", languageCode: "en" };
    expect((await miniApp(vic, `payouts/${bravoPayout.id}`)).status).toBe(404);
    expect((await miniApp(vic, `payouts/${alphaPayout.id}`)).status).toBe(200);
    const history = await miniApp(vic, "history");
    const ids = (history.json.items as Array<{ id: string }>).map((item) => item.id);
    expect(ids).toContain(alphaPayout.id);
    expect(ids).not.toContain(bravoPayout.id);
    const word = bravoPayout.recipientName.split(" ")[0] ?? "";
    const search = await miniApp(vic, `history?q=${encodeURIComponent(word)}`);
    const found = (search.json.items as Array<{ id: string }>).map((item) => item.id);
    expect(found).not.toContain(bravoPayout.id);
    // One merchant: no header. Two: the one the page is about.
    expect((await miniApp(vic, "me")).json.merchant).toBeUndefined();
    const mo: MiniAppUser = { id: MO, firstName: "Mo", languageCode: "en" };
    expect((await miniApp(mo, "me")).json.merchant).toBe("Alpha Couriers");
  });

  it("exports the merchant's own payouts only, and names the merchant on the file of a person of several", async () => {
    const exported = async (userId: number) => {
      const user = h.emulator.user({ id: userId, firstName: `U${userId}`, languageCode: "en" });
      const sent = h.emulator.waitForMessage(
        (message) => message.chatId === userId && message.document !== undefined,
      );
      await user.sendText("/export");
      const message = await sent;
      const document = h.emulator.documents(userId).find((d) => d.messageId === message.messageId);
      if (!document) throw new Error("no document");
      return document;
    };
    const alphaPaymentId = (await storesOf(h, "alpha").payouts.get(alphaPayout.id))?.paymentId;
    const bravoPaymentId = (await storesOf(h, "bravo").payouts.get(bravoPayout.id))?.paymentId;
    if (!alphaPaymentId || !bravoPaymentId) throw new Error("payouts not sent");
    const vics = await exported(VIC);
    const text = vics.bytes.toString("utf8");
    expect(text).toContain(alphaPaymentId);
    expect(text).not.toContain(bravoPaymentId);
    expect(vics.caption ?? "").not.toContain("Alpha Couriers");
    const mos = await exported(MO);
    expect(mos.caption).toContain("Alpha Couriers");
    expect(mos.bytes.toString("utf8")).toContain(alphaPaymentId);
    expect(mos.bytes.toString("utf8")).not.toContain(bravoPaymentId);
  });

  it("refuses a Mini App request naming a merchant the person is not staff of, as it refuses a stranger", async () => {
    const vic: MiniAppUser = { id: VIC, firstName: "Vic", languageCode: "en" };
    const refusal = { error: "forbidden", reason: "not_staff" };
    for (const named of ["bravo", "no-such-merchant"]) {
      for (const path of ["history", `payouts/${bravoPayout.id}`, "me"]) {
        const answer = await miniApp(vic, path, { "x-merchant": named });
        expect(answer).toEqual({ status: 403, json: refusal });
      }
    }
    // Without valid init data, naming a merchant tells nothing either: 401 before anything.
    for (const named of ["bravo", "no-such-merchant"]) {
      const response = await fetch(`${h.app.http?.url}/app/api/history`, {
        headers: { authorization: "tma user=%7B%22id%22%3A1003%7D&hash=00", "x-merchant": named },
      });
      expect(response.status).toBe(401);
    }
  });

  it("shows the merchant the page names to a person of several, with the others to switch to", async () => {
    const paul: MiniAppUser = { id: PAUL, firstName: "Paul", languageCode: "en" };
    const me = await miniApp(paul, "me", { "x-merchant": "bravo" });
    expect(me.json).toMatchObject({
      role: "viewer",
      merchant: "Bravo & Sons",
      merchantId: "bravo",
      merchants: [
        { id: "alpha", name: "Alpha Couriers" },
        { id: "bravo", name: "Bravo & Sons" },
      ],
    });
    const bravos = await miniApp(paul, "history", { "x-merchant": "bravo" });
    const ids = (bravos.json.items as Array<{ id: string }>).map((item) => item.id);
    expect(ids).toContain(bravoPayout.id);
    expect(ids).not.toContain(alphaPayout.id);
    expect(
      (await miniApp(paul, `payouts/${alphaPayout.id}`, { "x-merchant": "bravo" })).status,
    ).toBe(404);
    // The page's choice is the page's: the chat still acts for the merchant it chose.
    expect((await miniApp(paul, "me")).json).toMatchObject({ role: "payer", merchantId: "alpha" });
  });

  it("serves a CSV link made on a merchant's page with that merchant's history", async () => {
    // Paul may export in Bravo (viewer), Mo in Alpha (admin); both act for Alpha in the chat.
    const paul: MiniAppUser = { id: PAUL, firstName: "Paul", languageCode: "en" };
    const mo: MiniAppUser = { id: MO, firstName: "Mo", languageCode: "en" };
    const bravoPaymentId = (await storesOf(h, "bravo").payouts.get(bravoPayout.id))?.paymentId;
    const alphaPaymentId = (await storesOf(h, "alpha").payouts.get(alphaPayout.id))?.paymentId;
    if (!alphaPaymentId || !bravoPaymentId) throw new Error("payouts not sent");
    // Telegram's downloader fetches the link without the page's header.
    const csvOf = async (user: MiniAppUser, headers: Record<string, string>) => {
      const made = await miniApp(user, "history/csv/link", headers);
      expect(made.status).toBe(200);
      const response = await fetch(`${h.app.http?.url}${String(made.json.path)}`);
      expect(response.status).toBe(200);
      const disposition = response.headers.get("content-disposition") ?? "";
      return { name: String(made.json.name), disposition, text: await response.text() };
    };
    const bravos = await csvOf(paul, { "x-merchant": "bravo" });
    expect(bravos.text).toContain(bravoPaymentId);
    expect(bravos.text).not.toContain(alphaPaymentId);
    const alphas = await csvOf(mo, {});
    expect(alphas.text).toContain(alphaPaymentId);
    expect(alphas.text).not.toContain(bravoPaymentId);
    // Both work for two merchants: the file's name says whose it is.
    expect(bravos.name).toBe("payouts-bravo-filtered.csv");
    expect(bravos.disposition).toContain('filename="payouts-bravo-filtered.csv"');
    expect(alphas.disposition).toContain('filename="payouts-alpha-filtered.csv"');
  });

  it("names the merchant on the Mini App's CSV of a person of several only", async () => {
    const nameOf = async (user: MiniAppUser, headers: Record<string, string> = {}) => {
      const response = await fetch(`${h.app.http?.url}/app/api/history/csv`, {
        headers: { authorization: tmaHeader(h.emulator.token, user), ...headers },
      });
      expect(response.status).toBe(200);
      return response.headers.get("content-disposition");
    };
    const paul: MiniAppUser = { id: PAUL, firstName: "Paul", languageCode: "en" };
    expect(await nameOf(paul, { "x-merchant": "bravo" })).toContain('"payouts-bravo-filtered.csv"');
    const vic: MiniAppUser = { id: VIC, firstName: "Vic", languageCode: "en" };
    expect(await nameOf(vic)).toContain('"payouts-filtered.csv"');
  });

  it("acts in Alpha on a press on Alpha's approval card after the approver switched to Bravo", async () => {
    const paul = h.emulator.user({ id: PAUL, firstName: "Paul", languageCode: "en" });
    const mo = h.emulator.user({ id: MO, firstName: "Mo", languageCode: "en" });
    const prompt = await sendAndWait(
      h.emulator,
      paul,
      "/pay 237670000003 150000",
      isPromptIn(PAUL),
    );
    const card = h.emulator.waitForMessage(
      (m) => isPromptIn(MO)(m) && plainText(m).includes("Approval needed"),
    );
    await paul.pressButton(prompt, 0);
    const shown: SentMessage = await card;
    expect(plainText(shown)).toContain("Alpha Couriers");
    await switchTo(MO, 1, "Bravo");
    const decided = h.emulator.waitForMessage(
      (m) =>
        m.messageId === shown.messageId &&
        m.chatId === MO &&
        !plainText(m).includes("Approval needed"),
      10_000,
    );
    await mo.pressButton(shown, "✅ Approve");
    await decided;
    const { items } = await storesOf(h, "alpha").payouts.list({
      userId: PAUL,
      offset: 0,
      limit: 1,
    });
    expect(items[0]?.amount).toBe(150_000);
    expect(["submitting", "pending", "success"]).toContain(items[0]?.state);
    const inBravo = await storesOf(h, "bravo").payouts.list({ offset: 0, limit: 10 });
    expect(inBravo.items.map((payout) => payout.amount)).toEqual([7777]);
  });

  it("never settles or re-reads Alpha's payout from a callback on Bravo's path", async () => {
    h.sandbox.setSettleDelayMs(60_000);
    const payout = await payFor(ADA, "/pay 237670000001 4321", "alpha");
    const stored = await storesOf(h, "alpha").payouts.get(payout.id);
    const paymentId = stored?.paymentId ?? "";
    // The API's own answer, signed as a callback would be: only its path is wrong.
    h.sandbox.setCallbackUrl(`${h.app.http?.url}/webhooks/payments/bravo`);
    h.sandbox.forceStatus(paymentId, "success");
    await new Promise((resolve) => setTimeout(resolve, 500));
    const readsByB = h.sandbox.requests.filter(
      (r) => r.path === `/payments/${paymentId}` && r.apiKey === KEY_B,
    );
    expect(readsByB).toHaveLength(0);
    expect(await storesOf(h, "bravo").payouts.get(payout.id)).toBeNull();
    // Two merchants: the old path names none.
    const old = await fetch(`${h.app.http?.url}/webhooks/payments`, { method: "POST", body: "{}" });
    expect(old.status).toBe(404);
    const unknown = await fetch(`${h.app.http?.url}/webhooks/payments/nobody`, {
      method: "POST",
      body: "{}",
    });
    expect(unknown.status).toBe(404);
    h.sandbox.setCallbackUrl(undefined);
  });

  it("serves a CSV link made in Bravo with Bravo's payouts, wherever its person acts since, and never with another merchant's", async () => {
    const csvLink = async (user: MiniAppUser) => {
      const response = await fetch(`${h.app.http?.url}/app/api/history/csv/link`, {
        method: "POST",
        headers: { authorization: tmaHeader(h.emulator.token, user) },
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { path: string }).path;
    };
    const alphaPaymentId = (await storesOf(h, "alpha").payouts.get(alphaPayout.id))?.paymentId;
    const bravoPaymentId = (await storesOf(h, "bravo").payouts.get(bravoPayout.id))?.paymentId;
    if (!alphaPaymentId || !bravoPaymentId) throw new Error("payouts not sent");
    // Telegram's downloader fetches the link without init data: nothing says whose it is
    // but the link.
    const bea: MiniAppUser = { id: BEA, firstName: "Bea", languageCode: "en" };
    const beas = await fetch(`${h.app.http?.url}${await csvLink(bea)}`);
    expect(beas.status).toBe(200);
    const text = await beas.text();
    expect(text).toContain(bravoPaymentId);
    expect(text).not.toContain(alphaPaymentId);
    // Paul views Bravo and pays for Alpha: a link he made in Bravo stays Bravo's after he
    // switched back to Alpha.
    await switchTo(PAUL, 1, "Bravo");
    const pauls = await csvLink({ id: PAUL, firstName: "Paul", languageCode: "en" });
    await switchTo(PAUL, 0, "Alpha");
    const served = await fetch(`${h.app.http?.url}${pauls}`);
    expect(served.status).toBe(200);
    const paulsText = await served.text();
    expect(paulsText).toContain(bravoPaymentId);
    expect(paulsText).not.toContain(alphaPaymentId);
    // The merchant is part of what is signed: pointed at Alpha, the link is refused.
    const moved = new URL(pauls, h.app.http?.url);
    moved.searchParams.set("m", "alpha");
    expect((await fetch(moved)).status).toBe(403);
  });

  it("settles Alpha's payout from a callback on Alpha's own path", async () => {
    h.sandbox.setSettleDelayMs(60_000);
    const payout = await payFor(ADA, "/pay 237670000001 1234", "alpha");
    const paymentId = (await storesOf(h, "alpha").payouts.get(payout.id))?.paymentId ?? "";
    h.sandbox.setCallbackUrl(`${h.app.http?.url}/webhooks/payments/alpha`);
    const paid = h.emulator.waitForMessage(
      (m) => m.chatId === ADA && plainText(m).includes("Paid") && plainText(m).includes("1,234"),
      10_000,
    );
    h.sandbox.forceStatus(paymentId, "success");
    await paid;
    h.sandbox.setCallbackUrl(undefined);
  });
});
