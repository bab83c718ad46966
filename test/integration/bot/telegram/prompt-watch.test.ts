/**
 * A settled payout's prompt is not left on a late "Pending" when the Confirm that edits it
 * is not known in this process (another replica's, or one from before a restart): the
 * messenger edits the final status in once more after a Confirm's edits can have landed.
 * A Confirm that ran here and is done costs no second edit; nor does a payout sent long ago.
 * (A Confirm still editing here is covered end to end in test/e2e/pay/confirm-window.test.ts.)
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TelegramMessenger } from "../../../../src/bot/messenger/messenger.js";
import { PromptWatch } from "../../../../src/bot/telegram/prompt-watch.js";
import { boundedTelegram } from "../../../../src/bot/telegram/transport.js";
import {
  startTelegramEmulator,
  type TelegramEmulator,
} from "../../../../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../../../../src/logger.js";
import type { Payout } from "../../../../src/model/payout.js";
import { createMemoryStores } from "../../../../src/store/memory.js";
import type { Stores } from "../../../../src/store/types.js";
import { acceptedPayout } from "../../../support/payouts.js";

const PAYER = 1002;
const REASSERT_MS = 300;

describe("the final status of a prompt whose Confirm may still be editing it", () => {
  let emulator: TelegramEmulator;
  let stores: Stores;

  beforeEach(async () => {
    emulator = await startTelegramEmulator();
    emulator.user({ id: PAYER, firstName: "Paul" });
    stores = createMemoryStores({ retentionMs: 60_000 });
  });

  afterEach(async () => {
    await stores.close();
    await emulator.close();
  });

  function telegram() {
    return boundedTelegram(emulator.token, emulator.apiRoot, 5_000);
  }

  /** A prompt on screen and its payout, paid; sent `sentAgoMs` ago. */
  async function paidPrompt(sentAgoMs = 0): Promise<Payout> {
    const prompt = await telegram().sendMessage(PAYER, "Pay Jean-Paul Mbarga 5,000 FCFA?");
    const nowMs = Date.now();
    return {
      ...acceptedPayout(nowMs - sentAgoMs, { chatId: PAYER, messageId: prompt.message_id }),
      state: "success",
      apiStatus: "success",
      settledAtMs: nowMs,
    };
  }

  function textOf(payout: Payout): string {
    const message = emulator.message(PAYER, payout.messageId ?? 0);
    return message ? emulator.plainText(message) : "";
  }

  /** Edits asked for (one that changes nothing counts too: Telegram answers "not modified"). */
  function editsOf(payout: Payout): number {
    return emulator.calls.filter(
      (call) => call.method === "editMessageText" && call.params.message_id === payout.messageId,
    ).length;
  }

  it("puts the final status back over a late 'Pending' from a Confirm elsewhere", async () => {
    const messenger = new TelegramMessenger(telegram(), stores, silentLogger, {
      prompts: new PromptWatch(),
      reassertAfterMs: REASSERT_MS,
    });
    const payout = await paidPrompt();
    await messenger.deliver({ kind: "settled", payout, numberSaved: true });
    expect(textOf(payout)).toContain("Completed");
    // The other replica's Confirm edit lands late, over the final status.
    await telegram().editMessageText(PAYER, payout.messageId, undefined, "⏳ Pending");
    expect(textOf(payout)).toContain("Pending");

    await expect.poll(() => textOf(payout), { timeout: 10_000 }).toContain("Completed");
    expect(editsOf(payout)).toBe(3);
  });

  it("edits once when the Confirm ran here and is done, or the payout was sent long ago", async () => {
    const prompts = new PromptWatch();
    const messenger = new TelegramMessenger(telegram(), stores, silentLogger, {
      prompts,
      reassertAfterMs: REASSERT_MS,
    });
    const confirmedHere = await paidPrompt();
    prompts.watch(PAYER, confirmedHere.messageId ?? 0);
    expect(prompts.release(PAYER, confirmedHere.messageId ?? 0)).toBeUndefined();
    const sentLongAgo = await paidPrompt(11 * 60_000);
    // The control: a payout confirmed elsewhere, which is edited twice.
    const elsewhere = await paidPrompt();

    for (const payout of [confirmedHere, sentLongAgo, elsewhere]) {
      await messenger.deliver({ kind: "settled", payout, numberSaved: true });
    }
    await expect.poll(() => editsOf(elsewhere), { timeout: 10_000 }).toBe(2);
    expect(editsOf(confirmedHere)).toBe(1);
    expect(editsOf(sentLongAgo)).toBe(1);
  });

  it("hands the final view to a Confirm still editing here, which puts it back after its own", async () => {
    const prompts = new PromptWatch();
    const messenger = new TelegramMessenger(telegram(), stores, silentLogger, {
      prompts,
      reassertAfterMs: REASSERT_MS,
    });
    const payout = await paidPrompt();
    prompts.watch(PAYER, payout.messageId ?? 0);
    await messenger.deliver({ kind: "settled", payout, numberSaved: true });

    const handed = prompts.release<{ text: string }>(PAYER, payout.messageId ?? 0);
    expect(handed?.text).toContain("Completed");
    // Nothing more from the messenger: the Confirm here is the one to put it back.
    await new Promise((resolve) => setTimeout(resolve, REASSERT_MS * 3));
    expect(editsOf(payout)).toBe(1);
  });
});
