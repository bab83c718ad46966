/**
 * /pay when the Payment API says no or does not answer: no account, operator down, and
 * Confirm answered 400, 403, 500 or never. Each time exactly the requests that should
 * leave do (never a second POST /disburse) and the payer reads what happened.
 */
import { describe, expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { isNewReplyIn, isPromptIn, isPromptReading, sendAndWait } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID } from "../../support/harness.js";

const USERINFO = /^\/data\/userinfo\//;

const isPrompt = isPromptIn(PAYER_ID);

const newReply = isNewReplyIn(PAYER_ID);

describe("/pay refused or unanswered by the Payment API, end to end", () => {
  // A fresh harness per test: the service caches /availability for 30 s.
  const h = harnessPerTest();

  function payer() {
    return h.emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  }

  async function reply(text: string, until: (m: SentMessage) => boolean = newReply) {
    return sendAndWait(h.emulator, payer(), text, until);
  }

  async function storedStates(): Promise<string[]> {
    const { items } = await h.app.stores.payouts.list({ userId: PAYER_ID, offset: 0, limit: 10 });
    return items.map((payout) => payout.state);
  }

  /** Shows the prompt, presses Confirm, and resolves with the prompt once it reads `title`. */
  async function confirmUntil(title: string, timeoutMs = 5000): Promise<SentMessage> {
    const prompt = await reply("/pay 670000001 5000", isPrompt);
    const settled = h.emulator.waitForMessage(isPromptReading(prompt, title), timeoutMs);
    const press = await payer().pressButton(prompt, "✅ Confirm");
    const answer = await h.emulator.waitForCallbackAnswer(press.callbackQueryId);
    expect(answer.text).toBe("Sending…");
    const result = await settled;
    expect(result.replyMarkup ?? []).toHaveLength(0);
    return result;
  }

  it("says a number with no mobile money account has none, with no buttons and no payment", async () => {
    const answer = await reply("/pay 237670000004 5000");

    expect(plainText(answer)).toBe(
      "+237 670 00 00 04 has no mobile money account. Check the number with the recipient. Nothing was done.",
    );
    expect(answer.replyMarkup ?? []).toHaveLength(0);
    expect(h.sandbox.countRequests({ method: "GET", path: "/data/userinfo/237670000004" })).toBe(1);
    expect(h.sandbox.countRequests({ method: "POST" })).toBe(0);
    expect(await storedStates()).toEqual([]);
  });

  it("refuses politely when the operator is not taking payouts, without asking for the name", async () => {
    h.sandbox.setAvailability("mtn", "disbursement", "SUSPENDED");
    const availabilityBefore = h.sandbox.countRequests({ method: "GET", path: "/availability" });

    const answer = await reply("/pay 670000001 5000");

    expect(plainText(answer)).toBe(
      "MTN MoMo is not accepting payouts right now. Nothing was done; try again later (see /availability).",
    );
    expect(answer.replyMarkup ?? []).toHaveLength(0);
    expect(h.sandbox.countRequests({ method: "GET", path: "/availability" })).toBe(
      availabilityBefore + 1,
    );
    expect(h.sandbox.countRequests({ method: "GET", path: USERINFO })).toBe(0);
    expect(h.sandbox.countRequests({ method: "POST" })).toBe(0);
    expect(await storedStates()).toEqual([]);

    // The other operator is still served.
    const prompt = await reply("/pay 690000001 5000", isPrompt);
    expect(plainText(prompt)).toContain("Aïcha Nkoulou");
  });

  it("shows a 400 as not accepted with the API's reason, sent once, nothing paid", async () => {
    h.sandbox.injectFault({
      method: "POST",
      path: "/disburse",
      status: 400,
      body: { statusCode: 400, message: "amount exceeds the daily limit", details: [] },
    });

    const result = plainText(await confirmUntil("Not accepted"));

    expect(result).toContain(
      "The payment service found the request invalid: amount exceeds the daily limit",
    );
    expect(result).toContain("Nothing was paid.");
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
    expect(await storedStates()).toEqual(["rejected_by_api"]);
  });

  it("shows a 403 as payouts disabled, sent once, nothing paid", async () => {
    h.sandbox.injectFault({ method: "POST", path: "/disburse", status: 403 });

    const result = plainText(await confirmUntil("Not accepted"));

    expect(result).toContain("Payouts are disabled for this merchant account");
    expect(result).toContain("Nothing was paid.");
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
    expect(await storedStates()).toEqual(["rejected_by_api"]);
  });

  it("calls a 500 an unknown outcome that will not be retried, and says how to check", async () => {
    h.sandbox.injectFault({ method: "POST", path: "/disburse", status: 500 });

    const result = plainText(await confirmUntil("Outcome unknown"));

    expect(result).toContain("It will NOT be retried automatically");
    expect(result).toContain("/status");
    expect(result).toContain("/unknown");
    expect(result).not.toContain("Nothing was paid");
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
    expect(await storedStates()).toEqual(["unknown"]);
  });

  it("calls a disbursement that never gets an answer unknown after the timeout, sent once", async () => {
    h.sandbox.injectFault({ method: "POST", path: "/disburse", hang: true });

    // The harness sets PAYMENT_TIMEOUT_MS=2000.
    const result = plainText(await confirmUntil("Outcome unknown", 10_000));

    expect(result).toContain("It will NOT be retried automatically");
    expect(result).toContain("/status");
    expect(h.sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(1);
    expect(await storedStates()).toEqual(["unknown"]);
    // Nobody is told it was paid, and nothing polls a payment that has no id.
    expect(await h.app.stores.tracking.size()).toBe(0);
  });
});
