/**
 * Signed events end to end: the bot through the Telegram emulator, the sandbox over HTTP,
 * real Redis, and a receiver on 127.0.0.1 that checks every signature with the
 * `standardwebhooks` package.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { dayOf } from "../../../src/time.js";
import { EventReceiver } from "../../support/event-receiver.js";
import { isNewReplyWith, payAndConfirm, sendAndWait } from "../../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  type Harness,
  PAYER_ID,
  startHarness,
} from "../../support/harness.js";
import { waitUntil } from "../../support/processes.js";

/** Short pauses between tries, so a test sees three tries in well under a second. */
const FAST_RETRY = { firstMs: 100, maxMs: 400, giveUpAfterMs: 86_400_000 };

describe("signed events", () => {
  let receiver: EventReceiver;
  let h: Harness;

  beforeEach(async () => {
    receiver = await new EventReceiver().listen();
    h = await startHarness({ env: receiver.env, eventRetry: FAST_RETRY });
  });
  afterEach(async () => {
    await h.close();
    await receiver.close();
  });

  const typesOf = (payoutId: string) =>
    receiver.accepted.filter((event) => event.body.data.id === payoutId).map((e) => e.body.type);

  async function paidPayout() {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await payAndConfirm(h.emulator, payer, "/pay 237670000001 5000 rent");
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 1 });
    const payout = items[0];
    if (!payout) throw new Error("no payout stored");
    await waitUntil(() => typesOf(payout.id).includes("payout.succeeded"), "payout.succeeded");
    return payout;
  }

  it("sends a payout's events in order, signed, with the payout as the business knows it", async () => {
    const payout = await paidPayout();

    expect(typesOf(payout.id)).toEqual(["payout.submitted", "payout.pending", "payout.succeeded"]);
    expect(receiver.received.every((event) => event.verified)).toBe(true);
    const succeeded = receiver.accepted.find((e) => e.body.type === "payout.succeeded");
    expect(succeeded?.id).toMatch(/^evt_\d+_\d+$/);
    expect(succeeded?.body.data).toMatchObject({
      id: payout.id,
      kind: "disbursement",
      status: "success",
      amount: 5000,
      currency: "XAF",
      phoneNumber: "237670000001",
      recipientName: expect.stringContaining("Jean-Paul"),
      note: "rent",
      initiatedBy: PAYER_ID,
      actor: 0,
    });
    expect(succeeded?.body.data.paymentId).toEqual(expect.any(String));
    expect(Date.parse(succeeded?.body.timestamp ?? "")).toBeGreaterThan(0);
    const submitted = receiver.accepted.find((e) => e.body.type === "payout.submitted");
    expect(submitted?.body.data).toMatchObject({ status: "submitting", actor: PAYER_ID });
    // Nothing about our internals, and no secret anywhere.
    const text = JSON.stringify(receiver.received.map((event) => event.body));
    for (const internal of ["chatId", "messageId", "claimId", "locale", "pollCount"]) {
      expect(text).not.toContain(internal);
    }
    expect(text).not.toContain(receiver.secret.slice("whsec_".length));
  });

  it("tries an event again with the same id after two 500s, and it is accepted once", async () => {
    receiver.script.push(500, 500);
    const payout = await paidPayout();

    const first = receiver.received[0];
    expect(first?.body.type).toBe("payout.submitted");
    const tries = receiver.received.filter((event) => event.id === first?.id);
    expect(tries.map((event) => event.status)).toEqual([500, 500, 200]);
    expect(tries.every((event) => event.verified)).toBe(true);
    // Held back behind its first event, the payout's later ones still arrive after it.
    expect(typesOf(payout.id)).toEqual(["payout.submitted", "payout.pending", "payout.succeeded"]);
    const ids = receiver.accepted.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("disables the endpoint on 410 Gone, tells the admins, and sends again once resumed", async () => {
    receiver.script.push(410);
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    await sendAndWait(h.emulator, admin, "/help");
    const alert = h.emulator.waitForMessage(
      (m) => m.chatId === ADMIN_ID && plainText(m).includes("Signed events stopped"),
      10_000,
    );
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await payAndConfirm(h.emulator, payer, "/pay 237670000001 5000");
    expect(plainText(await alert)).toContain("410 Gone");

    const status = await sendAndWait(h.emulator, admin, "/events");
    expect(plainText(status)).toContain("disabled");
    expect(plainText(status)).toContain("gone: this endpoint was removed");
    expect(plainText(status)).not.toContain(receiver.secret.slice("whsec_".length));
    const triesWhileDisabled = receiver.received.length;
    expect(triesWhileDisabled).toBe(1);

    await sendAndWait(h.emulator, admin, "/events resume");
    await waitUntil(
      () => receiver.accepted.some((event) => event.body.type === "payout.succeeded"),
      "events sent after resume",
    );
    expect(receiver.accepted[0]?.id).toBe(receiver.received[0]?.id);
    const audit = await h.app.stores.audit.recent(20);
    expect(audit.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(["events_disabled", "events_resumed"]),
    );
  });

  it("replays a day's events with the ids they had", async () => {
    const payout = await paidPayout();
    const firstIds = receiver.accepted.map((event) => event.id);
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });

    const answer = await sendAndWait(
      h.emulator,
      admin,
      `/events replay ${dayOf(Date.now(), h.app.config.timeZone)}`,
    );
    expect(plainText(answer)).toContain("3 events of");
    await waitUntil(() => receiver.accepted.length >= firstIds.length * 2, "the replayed events");

    const again = receiver.accepted.slice(firstIds.length).map((event) => event.id);
    expect(again).toEqual(firstIds);
    expect(typesOf(payout.id)).toEqual([
      "payout.submitted",
      "payout.pending",
      "payout.succeeded",
      "payout.submitted",
      "payout.pending",
      "payout.succeeded",
    ]);
    const audit = await h.app.stores.audit.recent(5);
    expect(audit.some((entry) => entry.action === "events_replayed")).toBe(true);
  });

  it("holds events while paused and sends them once resumed, both audited", async () => {
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const paused = await sendAndWait(h.emulator, admin, "/events pause");
    expect(plainText(paused)).toContain("Events paused");
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await payAndConfirm(h.emulator, payer, "/pay 237670000001 5000");
    await waitUntil(async () => {
      const status = plainText(await sendAndWait(h.emulator, admin, "/events"));
      return status.includes("Waiting: 3");
    }, "three events waiting");
    expect(receiver.received).toHaveLength(0);

    await sendAndWait(h.emulator, admin, "/events resume");
    await waitUntil(() => receiver.accepted.length === 3, "the held events");
    expect(receiver.accepted.map((event) => event.body.type)).toEqual([
      "payout.submitted",
      "payout.pending",
      "payout.succeeded",
    ]);
    const actions = (await h.app.stores.audit.recent(30)).map((entry) => entry.action);
    expect(actions).toEqual(expect.arrayContaining(["events_paused", "events_resumed"]));
  });

  it("sends batch.confirmed and batch.completed, and each row's payout events with its batch id", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const preview = h.emulator.waitForMessage((m) => plainText(m).includes("checked"), 20_000);
    const file = "phone,amount\n670000001,1000\n690000001,2000\n";
    await payer.uploadDocument("pay.csv", "text/csv", Buffer.from(file));
    const shown = await preview;
    await payer.pressButton(shown, 0);
    await waitUntil(
      () => receiver.accepted.some((event) => event.body.type === "batch.completed"),
      "batch.completed",
      20_000,
    );

    const batchEvents = receiver.accepted.filter((e) => e.body.type.startsWith("batch."));
    expect(batchEvents.map((event) => event.body.type)).toEqual([
      "batch.confirmed",
      "batch.completed",
    ]);
    const batchId = batchEvents[0]?.body.data.id ?? "";
    expect(batchEvents[1]?.body.data).toMatchObject({
      id: batchId,
      status: "done",
      fileName: "pay.csv",
      rows: 2,
      tally: expect.objectContaining({ paid: 2, paidXaf: 3000 }),
    });
    const rows = receiver.accepted.filter((e) => e.body.data.batchId === batchId);
    expect(rows.filter((e) => e.body.type === "payout.succeeded")).toHaveLength(2);
    expect(receiver.received.every((event) => event.verified)).toBe(true);
  });

  it("shows the endpoint and the last day's deliveries to admins only", async () => {
    await paidPayout();
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const status = plainText(await sendAndWait(h.emulator, admin, "/events"));
    expect(status).toContain(receiver.url);
    expect(status).toContain("Delivered in the last 24 h: 3");
    expect(status).toContain("Waiting: 0");
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    // paidPayout waits for the event, not the "Paid" notice, which may still come first here.
    const refused = plainText(
      await sendAndWait(h.emulator, payer, "/events", isNewReplyWith(PAYER_ID, "Only admins")),
    );
    expect(refused).not.toContain(receiver.url);
  });
});

describe("signed events of approvals and collections", () => {
  let receiver: EventReceiver;
  let h: Harness;

  beforeEach(async () => {
    receiver = await new EventReceiver().listen();
    h = await startHarness({ env: { ...receiver.env, APPROVAL_THRESHOLD_XAF: "100000" } });
  });
  afterEach(async () => {
    await h.close();
    await receiver.close();
  });

  const eventsOf = (payoutId: string) =>
    receiver.accepted.filter((event) => event.body.data.id === payoutId);

  it("sends approval.requested and approval.approved before the payout's own events", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    const approver = h.emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
    await sendAndWait(h.emulator, approver, "/help");
    const card = h.emulator.waitForMessage(
      (m) => m.chatId === APPROVER_ID && plainText(m).includes("Approval needed"),
    );
    await payAndConfirm(h.emulator, payer, "/pay 237670000001 250000 rent", "Waiting for approval");
    const paid = h.emulator.waitForMessage(
      (m) => m.chatId === PAYER_ID && plainText(m).includes("Paid"),
      10_000,
    );
    await approver.pressButton(await card, 0);
    await paid;
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 1 });
    const id = items[0]?.id ?? "";
    await waitUntil(() => eventsOf(id).length === 5, "the approval's and payout's events");

    expect(eventsOf(id).map((event) => event.body.type)).toEqual([
      "approval.requested",
      "approval.approved",
      "payout.submitted",
      "payout.pending",
      "payout.succeeded",
    ]);
    expect(eventsOf(id)[1]?.body.data).toMatchObject({
      status: "submitting",
      approvedBy: APPROVER_ID,
      actor: APPROVER_ID,
      amount: 250000,
    });
    expect(receiver.received.every((event) => event.verified)).toBe(true);
  });

  it("sends a collection's events as collection.*", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await payAndConfirm(h.emulator, payer, "/collect 237690000001 3000");
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 1 });
    const id = items[0]?.id ?? "";
    await waitUntil(() => eventsOf(id).length === 3, "the collection's events");

    expect(eventsOf(id).map((event) => event.body.type)).toEqual([
      "collection.submitted",
      "collection.pending",
      "collection.succeeded",
    ]);
    expect(eventsOf(id)[2]?.body.data).toMatchObject({
      kind: "collection",
      phoneNumber: "237690000001",
      operator: "orange",
      amount: 3000,
    });
  });
});

describe("signed events of operator availability", () => {
  let receiver: EventReceiver;
  let h: Harness;

  beforeEach(async () => {
    receiver = await new EventReceiver().listen();
    h = await startHarness({ env: { ...receiver.env, AVAILABILITY_CHECK_SECONDS: "1" } });
  });
  afterEach(async () => {
    await h.close();
    await receiver.close();
  });

  it("sends operator.availability_changed when MTN payouts go down and when they come back", async () => {
    const changes = () =>
      receiver.accepted.filter((event) => event.body.type === "operator.availability_changed");
    await waitUntil(
      () => h.sandbox.countRequests({ method: "GET", path: "/availability" }) > 0,
      "a first availability check",
    );
    h.sandbox.setAvailability("mtn", "disbursement", "SUSPENDED");
    await waitUntil(() => changes().length === 1, "the down event", 15_000);
    h.sandbox.setAvailability("mtn", "disbursement", "OPERATIONAL");
    await waitUntil(() => changes().length === 2, "the back-up event", 15_000);

    expect(changes().map((event) => event.body.data)).toEqual([
      expect.objectContaining({
        operator: "mtn",
        operation: "disbursement",
        status: "SUSPENDED",
        available: false,
      }),
      expect.objectContaining({
        operator: "mtn",
        operation: "disbursement",
        status: "OPERATIONAL",
        available: true,
      }),
    ]);
    expect(changes().every((event) => event.verified)).toBe(true);
  });
});

describe("signed events a receiver never accepts", () => {
  let receiver: EventReceiver;
  let h: Harness;

  beforeEach(async () => {
    receiver = await new EventReceiver().listen();
    receiver.fallback = 503;
    // Tries stop 1.5 s after the change here (3 days in production).
    const retry = { firstMs: 100, maxMs: 200, giveUpAfterMs: 1500 };
    h = await startHarness({ env: receiver.env, eventRetry: retry });
  });
  afterEach(async () => {
    await h.close();
    await receiver.close();
  });

  it("drops them once the tries' window is over, counts them, and shows the failures", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
    await payAndConfirm(h.emulator, payer, "/pay 237670000001 5000");
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    let status = "";
    await waitUntil(
      async () => {
        status = plainText(await sendAndWait(h.emulator, admin, "/events"));
        return status.includes("Waiting: 0") && status.includes("Dropped");
      },
      "the events dropped",
      15_000,
    );
    expect(status).toContain("Dropped after 3 days of tries: 3");
    expect(status).toContain("503 answer 503");
    expect(receiver.accepted).toHaveLength(0);
    // Each was tried more than once, and each payout's events still went in order.
    const firstTries = receiver.received.map((event) => event.body.type);
    expect(firstTries[0]).toBe("payout.submitted");
    expect(new Set(receiver.received.map((event) => event.id)).size).toBe(3);
    expect(receiver.received.length).toBeGreaterThan(3);
  });
});
