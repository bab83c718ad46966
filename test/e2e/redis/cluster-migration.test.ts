/**
 * A merchant's slot migrated to another primary of a Redis Cluster while its payouts run
 * (CLUSTER SETSLOT … IMPORTING/MIGRATING, MIGRATE of its keys, SETSLOT … NODE: what
 * `redis-cli --cluster reshard` does, for the one slot), in-process through the emulator
 * and the sandbox. The cluster client follows ASK and MOVED; a script whose keys are split
 * between the two nodes meanwhile is answered TRYAGAIN and sent again. Every payout is paid
 * once, and every payer told.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { DEFAULT_MERCHANT_ID, keys, merchantKeyPrefix } from "../../../src/store/keys.js";
import { dropPrefix } from "../../../src/store/redis/connection.js";
import { clusterForFile } from "../../support/cluster.js";
import { showPrompt } from "../../support/flows.js";
import { ADMIN_ID, startHarness } from "../../support/harness.js";

const DISBURSE = { method: "POST", path: "/disburse" } as const;
const PAYERS = Array.from({ length: 8 }, (_, index) => 4001 + index);

const file = clusterForFile();

describe("a merchant's slot migrated while its payouts run", () => {
  it("pays every payout once and tells every payer", { timeout: 90_000 }, async () => {
    const h = await startHarness({
      env: {
        ...file.cluster.env(),
        REDIS_URL: "",
        STAFF: [`${ADMIN_ID}:admin`, ...PAYERS.map((id) => `${id}:payer`)].join(","),
      },
    });
    try {
      h.sandbox.injectFault({
        ...DISBURSE,
        delayMs: 300,
        afterHandling: true,
        times: Number.POSITIVE_INFINITY,
      });
      const prompts = [];
      for (const [index, id] of PAYERS.entries()) {
        const payer = h.emulator.user({ id, firstName: `Payer ${id}`, languageCode: "en" });
        const prompt = await showPrompt(h.emulator, payer, `/pay 237670000001 ${2001 + index}`);
        prompts.push({ payer, prompt, amount: 2001 + index });
      }
      const key = keys(merchantKeyPrefix(h.prefix, DEFAULT_MERCHANT_ID)).staff();
      const before = await file.cluster.primaryOf(key);
      const paid = prompts.map(({ payer, prompt, amount }) =>
        h.emulator.waitForMessage(
          (m) =>
            m.chatId === payer.id &&
            m.messageId !== prompt.messageId &&
            plainText(m).includes(`Paid: ${amount.toLocaleString("en-US")} FCFA`),
          45_000,
        ),
      );
      for (const item of paid) item.catch(() => {});
      // Presses a moment apart, the migration under way among them.
      const pressing = (async () => {
        for (const { payer, prompt } of prompts) {
          await payer.pressButton(prompt, 0);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 150));
      await file.cluster.reshardSlotOf(key);
      await pressing;
      expect((await file.cluster.primaryOf(key)).port).not.toBe(before.port);

      await Promise.all(paid);
      const sent = h.sandbox.requests
        .filter((r) => r.method === DISBURSE.method && r.path === DISBURSE.path)
        .map((r) =>
          typeof r.body === "object" && r.body !== null && "amount" in r.body
            ? Number(r.body.amount)
            : Number.NaN,
        );
      for (const { amount } of prompts) expect(sent.filter((a) => a === amount)).toHaveLength(1);
      for (const id of PAYERS) {
        const { items } = await h.app.stores.payouts.list({ userId: id, offset: 0, limit: 5 });
        expect(items.map((payout) => payout.state)).toEqual(["success"]);
      }
    } finally {
      await h.close();
      await dropPrefix(file.redis, h.prefix);
    }
  });
});
