/**
 * A merchant with nothing due costs Redis nothing: its loops rest until work written by any
 * replica wakes them (pub/sub, in the same step as the write) or until their next work is
 * due, read from the store; no timer reads Redis meanwhile. A payment callback that lands on
 * another replica still gets its Paid notice at once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startMerchantsApp } from "../../../src/app-merchants.js";
import { loadMerchants } from "../../../src/config/merchants.js";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../../../src/logger.js";
import { keys } from "../../../src/store/keys.js";
import { isPromptIn, pressAndWait, sendAndWait } from "../../support/flows.js";
import { monitorRedis } from "../../support/redis-monitor.js";
import {
  ADA,
  type MerchantsHarness,
  startMerchantsHarness,
  storesOf,
} from "./merchants-harness.js";

let h: MerchantsHarness | undefined;
const later: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const step of later.splice(0).reverse()) await step();
  await h?.close();
  h = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("merchants at rest", () => {
  it("sends nothing to Redis for a merchant with nothing due, over several former rests", async () => {
    // Loops tick every 50 ms (the harness): they rested 1 s (20 ticks) before; now until woken.
    const started = await startMerchantsHarness();
    h = started;
    const prefix = keys(started.prefix).prefix;
    await sleep(1_500); // the first rounds (resume, bootstrap) are not rest
    const sent = new Map<string, number>();
    const watching = await monitorRedis((args, client) => {
      if (client === "lua") return;
      const key = args.find((arg) => arg.startsWith(`${prefix}{m:`));
      if (!key) return;
      const what = `${args[0]} ${key.slice(prefix.length)}`;
      sent.set(what, (sent.get(what) ?? 0) + 1);
    });
    await sleep(4_000); // four of the former rests
    watching.close();
    expect(Object.fromEntries(sent)).toEqual({});
  });

  it("gets a payout's Paid notice at once when its callback lands on another replica", async () => {
    // A minute's rest: only a wake, not a round on the loops' own pace, can deliver it in time.
    const started = await startMerchantsHarness({ restMs: 60_000 });
    h = started;
    started.sandbox.setSettleDelayMs(600_000);
    const other = await startMerchantsApp({
      env: started.env,
      merchants: loadMerchants(started.env).merchants,
      logger: silentLogger,
      pollTimeoutSeconds: 1,
      loopTickMs: 50,
      restMs: 60_000,
    });
    later.push(() => other.stop());
    const ada = started.emulator.user({ id: ADA, firstName: "Ada", languageCode: "en" });
    const prompt = await sendAndWait(
      started.emulator,
      ada,
      "/pay 237670000001 2345",
      isPromptIn(ADA),
    );
    await pressAndWait(started.emulator, ada, prompt, "Pending");
    const { items } = await storesOf(started, "alpha").payouts.list({
      userId: ADA,
      offset: 0,
      limit: 1,
    });
    const paymentId = items[0]?.paymentId ?? "";
    expect(paymentId).not.toBe("");
    await sleep(300); // every loop on both replicas has found nothing and rests
    started.sandbox.setCallbackUrl(`${other.http?.url}/webhooks/payments/alpha`);
    const paid = started.emulator.waitForMessage(
      (m) => m.chatId === ADA && plainText(m).includes("Paid") && plainText(m).includes("2,345"),
      10_000,
    );
    started.sandbox.forceStatus(paymentId, "success");
    await paid;
    started.sandbox.setCallbackUrl(undefined);
  });
});
