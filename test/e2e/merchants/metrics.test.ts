/**
 * One /metrics for a bot serving two businesses (MERCHANTS_FILE, METRICS_ENABLED): each
 * metric family once, every merchant's series under it with a `merchant` label, the
 * process's own metrics once, scraped while both merchants pay.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPromptIn, isPromptReading, sendAndWait } from "../../support/flows.js";
import { ADA, BEA, type MerchantsHarness, startMerchantsHarness } from "./merchants-harness.js";

let h: MerchantsHarness;

beforeAll(async () => {
  h = await startMerchantsHarness({ env: { METRICS_ENABLED: "true" } });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

/** `userId` pays `command` in their merchant and waits for the Paid notice. */
async function payAndWait(userId: number, command: string): Promise<void> {
  const user = h.emulator.user({ id: userId, firstName: `U${userId}`, languageCode: "en" });
  const prompt = await sendAndWait(h.emulator, user, command, isPromptIn(userId));
  const paid = h.emulator.waitForMessage(
    (m) => m.chatId === userId && m.messageId !== prompt.messageId && /Paid/.test(m.text ?? ""),
    15_000,
  );
  const pending = h.emulator.waitForMessage(isPromptReading(prompt, "Pending"), 10_000);
  await user.pressButton(prompt, 0);
  await Promise.all([pending, paid]);
}

async function scrape(): Promise<string> {
  const response = await fetch(`${h.app.http?.url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

/** The lines of series `name` (no HELP/TYPE lines). */
function series(text: string, name: string): string[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe("metrics of a bot serving several merchants", () => {
  it("serves one /metrics where each merchant's series carry its id", async () => {
    await Promise.all([
      payAndWait(ADA, "/pay 237670000001 5000"),
      payAndWait(BEA, "/pay 237670000001 7000"),
    ]);
    const text = await scrape();

    // Each family once, whatever the number of merchants.
    for (const family of ["payout_bot_paid_xaf_total", "payout_bot_payout_moves_total"]) {
      expect(text.split("\n").filter((line) => line === `# TYPE ${family} counter`)).toHaveLength(
        1,
      );
    }
    const paid = series(text, "payout_bot_paid_xaf_total");
    expect(paid.filter((line) => line.includes('merchant="alpha"'))).toEqual([
      expect.stringMatching(/ 5000$/),
    ]);
    expect(paid.filter((line) => line.includes('merchant="bravo"'))).toEqual([
      expect.stringMatching(/ 7000$/),
    ]);
    expect(paid.every((line) => /merchant="(alpha|bravo)"/.test(line))).toBe(true);
    // The Payment API calls are each merchant's own, under its own label.
    const calls = series(text, "payout_bot_payment_api_requests_total");
    expect(
      calls.some(
        (line) => line.includes('operation="disburse"') && line.includes('merchant="alpha"'),
      ),
    ).toBe(true);
    expect(
      calls.some(
        (line) => line.includes('operation="disburse"') && line.includes('merchant="bravo"'),
      ),
    ).toBe(true);
    const duration = "payout_bot_payment_api_request_duration_seconds";
    expect(text.split("\n").filter((line) => line === `# TYPE ${duration} histogram`)).toHaveLength(
      1,
    );
    for (const merchant of ["alpha", "bravo"]) {
      const counts = series(text, `${duration}_count`).filter((line) =>
        line.includes(`merchant="${merchant}"`),
      );
      expect(counts.length).toBeGreaterThan(0);
      const buckets = series(text, `${duration}_bucket`).filter((line) =>
        line.includes(`merchant="${merchant}"`),
      );
      expect(buckets.some((line) => line.includes('le="+Inf"'))).toBe(true);
    }
    // Each merchant's gauges are read at the scrape.
    expect(series(text, "payout_bot_gauges_read_ok").sort()).toEqual([
      'payout_bot_gauges_read_ok{merchant="alpha"} 1',
      'payout_bot_gauges_read_ok{merchant="bravo"} 1',
    ]);
    // The process is one: its metrics once, with no merchant.
    const cpu = series(text, "payout_bot_process_cpu_user_seconds_total");
    expect(cpu).toHaveLength(1);
    expect(cpu[0]).not.toContain("merchant=");
  });
});
