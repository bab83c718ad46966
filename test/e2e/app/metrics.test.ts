import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { pressAndWait, showPrompt } from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID } from "../../support/harness.js";

/** One sample of the exposition text: its name, its labels and its value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function samplesOf(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] ?? ""] = pair[2] ?? "";
    }
    samples.push({ name: match[1] ?? "", labels, value: Number(match[3]) });
  }
  return samples;
}

function sumOf(samples: Sample[], name: string, labels: Record<string, string>): number {
  const found = samples.filter(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  return found.reduce((sum, sample) => sum + sample.value, 0);
}

async function scrape(url: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}/metrics`);
  return { status: response.status, text: await response.text() };
}

describe("GET /metrics with METRICS_ENABLED=true", () => {
  const h = harnessPerTest({ env: { METRICS_ENABLED: "true" } });

  it("counts a /pay to Paid (moves, money, API requests) with no phone, name or id in a label", async () => {
    const payer = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    const prompt = h.emulator.waitForMessage(
      (m) => m.chatId === ADMIN_ID && (m.replyMarkup?.length ?? 0) > 0,
    );
    await payer.sendText("/pay 237670000001 5000 delivery");
    const shown = await prompt;
    const paid = h.emulator.waitForMessage(
      (m) =>
        m.chatId === ADMIN_ID && m.messageId !== shown.messageId && plainText(m).includes("Paid"),
    );
    await payer.pressButton(shown, 0);
    await paid;
    const url = h.app.http?.url ?? "";

    // No Authorization header at all: the Mini App's sign-in is not asked for.
    const { status, text } = await scrape(url);
    expect(status).toBe(200);
    const samples = samplesOf(text);
    const moves = "payout_bot_payout_moves_total";
    expect(sumOf(samples, moves, { event: "create", to: "awaiting_confirmation" })).toBe(1);
    expect(sumOf(samples, moves, { event: "confirm", to: "submitting" })).toBe(1);
    expect(sumOf(samples, moves, { event: "accepted", to: "pending" })).toBe(1);
    expect(sumOf(samples, moves, { to: "success", kind: "disbursement", operator: "mtn" })).toBe(1);
    expect(sumOf(samples, "payout_bot_paid_xaf_total", { kind: "disbursement" })).toBe(5000);
    const requests = "payout_bot_payment_api_requests_total";
    expect(sumOf(samples, requests, { operation: "disburse", status: "201" })).toBe(1);
    expect(sumOf(samples, requests, { operation: "getUserInfo", status: "200" })).toBe(1);
    expect(sumOf(samples, requests, { operation: "getPayment", status: "200" })).toBeGreaterThan(0);
    expect(
      sumOf(samples, "payout_bot_payment_api_request_duration_seconds_count", {
        operation: "disburse",
      }),
    ).toBe(1);
    expect(sumOf(samples, "payout_bot_redis_command_duration_seconds_count", {})).toBeGreaterThan(
      0,
    );
    expect(sumOf(samples, "payout_bot_payouts_in_state", { state: "pending" })).toBe(0);
    expect(sumOf(samples, "payout_bot_gauges_read_ok", {})).toBe(1);
    expect(sumOf(samples, "payout_bot_process_cpu_seconds_total", {})).toBeGreaterThan(0);

    const { items } = await h.app.stores.payouts.list({ offset: 0, limit: 5 });
    const payout = items[0];
    expect(payout?.paymentId).toBeDefined();
    const secrets = [
      "670000001",
      "Jean",
      "Awa",
      String(ADMIN_ID),
      payout?.id ?? "?",
      payout?.paymentId ?? "?",
    ];
    const labelValues = samples.flatMap((sample) => Object.values(sample.labels));
    expect(labelValues.length).toBeGreaterThan(20);
    for (const secret of secrets) {
      expect(labelValues.filter((value) => value.includes(secret))).toEqual([]);
    }
  });
});

describe("GET /metrics, what needs a person", () => {
  const h = harnessPerTest({ env: { METRICS_ENABLED: "true" } });

  it("counts an unknown payout, the API's 503 and 429 tried again, and a failed Bot API call", async () => {
    const payer = h.emulator.user({ id: PAYER_ID, firstName: "Brice", languageCode: "en" });
    h.sandbox.injectFault({ method: "GET", path: /^\/data\/userinfo\//, status: 503 });
    h.sandbox.injectFault({
      method: "GET",
      path: /^\/data\/userinfo\//,
      status: 429,
      retryAfterSeconds: 1,
    });
    const prompt = await showPrompt(h.emulator, payer, "/pay 237670000001 7000");
    h.sandbox.injectFault({ method: "POST", path: "/disburse", status: 500, afterHandling: true });
    h.emulator.failNext("answerCallbackQuery", {
      error_code: 400,
      description: "Bad Request: query is too old and response timeout expired",
    });
    await pressAndWait(h.emulator, payer, prompt, "Outcome unknown");

    const samples = samplesOf((await scrape(h.app.http?.url ?? "")).text);
    expect(sumOf(samples, "payout_bot_payouts_in_state", { state: "unknown" })).toBe(1);
    expect(sumOf(samples, "payout_bot_payout_moves_total", { to: "unknown" })).toBe(1);
    expect(sumOf(samples, "payout_bot_paid_xaf_total", {})).toBe(0);
    const requests = "payout_bot_payment_api_requests_total";
    expect(sumOf(samples, requests, { operation: "getUserInfo", status: "503" })).toBe(1);
    expect(sumOf(samples, requests, { operation: "getUserInfo", status: "429" })).toBe(1);
    expect(sumOf(samples, requests, { operation: "getUserInfo", status: "200" })).toBe(1);
    expect(sumOf(samples, requests, { operation: "disburse", status: "500" })).toBe(1);
    expect(
      sumOf(samples, "payout_bot_payment_api_retries_total", { operation: "getUserInfo" }),
    ).toBe(2);
    expect(sumOf(samples, "payout_bot_payment_api_retries_total", { operation: "disburse" })).toBe(
      0,
    );
    expect(
      sumOf(samples, "payout_bot_telegram_api_errors_total", {
        method: "answerCallbackQuery",
        code: "400",
      }),
    ).toBe(1);
  });
});

describe("GET /metrics with metrics off (the default)", () => {
  const h = harnessPerTest();

  it("is not found", async () => {
    const { status } = await scrape(h.app.http?.url ?? "");
    expect(status).toBe(404);
    expect(h.app.metricsServer).toBeUndefined();
  });
});

describe("GET /metrics on METRICS_PORT", () => {
  const h = harnessPerTest({ env: { METRICS_PORT: "0" } });

  it("is served on loopback by a server of its own, and not by the main server", async () => {
    const own = h.app.metricsServer;
    expect(own).toBeDefined();
    expect(new URL(own?.url ?? "http://x").hostname).toBe("127.0.0.1");
    const { status, text } = await scrape(own?.url ?? "");
    expect(status).toBe(200);
    expect(text).toContain("payout_bot_payouts_in_state");
    expect((await fetch(`${own?.url}/healthz`)).status).toBe(404);
    expect((await scrape(h.app.http?.url ?? "")).status).toBe(404);
  });
});
