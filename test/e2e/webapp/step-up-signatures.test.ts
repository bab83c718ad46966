/**
 * The PIN for each signature (APPROVAL_RULES with STEP_UP_THRESHOLD_XAF): a batch at or over
 * the PIN threshold in a band of two signatures. A signature that is not the last is a
 * decision too: pressed in the chat, forged or not, it is refused and not recorded.
 */
import { expect, it } from "vitest";
import { plainText, type SentMessage } from "../../../src/dev/telegram-emulator/index.js";
import { apiWorldPerTest, callApi } from "../../support/api-world.js";
import { sendAndWait } from "../../support/flows.js";
import { APPROVER_ID, PAYER_ID } from "../../support/harness.js";

const world = apiWorldPerTest("step-up-signatures", {
  STEP_UP_THRESHOLD_XAF: "100000",
  APPROVAL_RULES: "100000:2",
});

/** A Mini App API call as `userId`, with init data signed by the bot token now. */
const call = (userId: number, method: "GET" | "POST", path: string, body?: unknown) =>
  callApi(world(), { id: userId, firstName: "Ama" }, method, path, body);

it("refuses a batch's first signature pressed in the chat without the PIN: nothing is recorded", async () => {
  const { emulator, app } = world();
  const payer = emulator.user({ id: PAYER_ID, firstName: "Paul", languageCode: "en" });
  const approver = emulator.user({ id: APPROVER_ID, firstName: "Ama", languageCode: "en" });
  await sendAndWait(emulator, approver, "/help");
  await call(PAYER_ID, "POST", "step-up/pin", { pin: "123456", repeat: "123456" });
  const preview = emulator.waitForMessage((m) => plainText(m).includes("is checked"), 20_000);
  const file = "phone,amount\n670000001,60000\n690000001,50000\n";
  await payer.uploadDocument("big.csv", "text/csv", Buffer.from(file));
  await preview;
  const [batch] = await app.stores.batches.list({ limit: 1 });
  const batchId = batch?.id ?? "";
  const card = emulator.waitForMessage(
    (m: SentMessage) => m.chatId === APPROVER_ID && plainText(m).includes("Approval needed"),
  );
  const confirmed = await call(PAYER_ID, "POST", `step-up/batch-confirm/${batchId}`, {
    pin: "123456",
  });
  expect(confirmed.json).toMatchObject({ state: "awaiting_approval" });
  const shown = await card;

  const forged = await approver.pressCallbackData(shown.messageId, `ba:${batchId}`);
  const answer = await emulator.waitForCallbackAnswer(forged.callbackQueryId);
  expect(answer.text).toContain("PIN");
  const waiting = await app.stores.batches.get(batchId);
  expect(waiting?.state).toBe("awaiting_approval");
  expect(waiting?.signatures ?? []).toEqual([]);
  // With the PIN, the same person's signature counts: one of two, nothing paid yet.
  await call(APPROVER_ID, "POST", "step-up/pin", { pin: "654321", repeat: "654321" });
  const signed = await call(APPROVER_ID, "POST", `step-up/batch-approve/${batchId}`, {
    pin: "654321",
  });
  expect(signed.status).toBe(200);
  const after = await app.stores.batches.get(batchId);
  expect(after?.signatures?.map((s) => s.userId)).toEqual([APPROVER_ID]);
  expect(after?.state).toBe("awaiting_approval");
});
