/**
 * Many merchants, one Redis connection set: every merchant's runtime sends its commands on
 * the front's connection (under its own `{m:<id>}` prefix), a merchant removed by a reload
 * leaves that connection open for the others, and a merchant that fails to start is named.
 */
import { afterEach, describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { keys } from "../../../src/store/keys.js";
import { isPromptIn, sendAndWait } from "../../support/flows.js";
import { monitorRedis } from "../../support/redis-monitor.js";
import {
  ADA,
  BEA,
  type MerchantsHarness,
  merchantEntries,
  startMerchantsHarness,
} from "./merchants-harness.js";

let h: MerchantsHarness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The clients that sent a command naming a key of `merchant` (scripts' own calls left out). */
function watchClients(prefix: string) {
  const byMerchant = new Map<string, Set<string>>();
  const monitor = monitorRedis((args, client) => {
    if (client === "lua") return;
    for (const arg of args) {
      const match = /^\{m:([a-z0-9-]+)\}:/.exec(
        arg.startsWith(prefix) ? arg.slice(prefix.length) : "",
      );
      if (!match?.[1]) continue;
      const clients = byMerchant.get(match[1]) ?? new Set<string>();
      clients.add(client);
      byMerchant.set(match[1], clients);
    }
  });
  return { byMerchant, monitor };
}

describe("merchants on one Redis connection set", () => {
  it("sends every merchant's commands on one connection, kept open when a merchant is removed", async () => {
    const started = await startMerchantsHarness();
    h = started;
    const { byMerchant, monitor } = watchClients(keys(started.prefix).prefix);
    const watching = await monitor;
    try {
      const ada = started.emulator.user({ id: ADA, firstName: "Ada", languageCode: "en" });
      const bea = started.emulator.user({ id: BEA, firstName: "Bea", languageCode: "en" });
      await sendAndWait(started.emulator, ada, "/pay 237670000001 1200", isPromptIn(ADA));
      await sendAndWait(started.emulator, bea, "/pay 237670000002 1300", isPromptIn(BEA));
      const alphaClients = [...(byMerchant.get("alpha") ?? [])];
      const bravoClients = [...(byMerchant.get("bravo") ?? [])];
      expect(alphaClients).toHaveLength(1);
      expect(bravoClients).toEqual(alphaClients);

      const [alpha] = merchantEntries(started.sandbox);
      started.writeFile([alpha]);
      expect(await started.app.reload()).toMatchObject({ outcome: "reloaded", removed: ["bravo"] });
      byMerchant.clear();
      const prompt = await sendAndWait(
        started.emulator,
        ada,
        "/pay 237670000001 1400",
        isPromptIn(ADA),
      );
      expect(plainText(prompt)).toContain("1,400");
      expect([...(byMerchant.get("alpha") ?? [])]).toEqual(alphaClients);
    } finally {
      watching.close();
    }
  });

  it("names the merchant that did not start", async () => {
    await expect(
      startMerchantsHarness({ extra: { bravo: { paymentApiKey: "not-a-key-of-the-sandbox" } } }),
    ).rejects.toThrow(/^Merchant bravo: The Payment API refused PAYMENT_API_KEY/);
  });
});
