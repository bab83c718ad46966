import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { knownStatus, type PaymentStatus } from "../../../src/model/payment-terms.js";
import { PaymentSchema } from "../../../src/payments/schemas.js";
import { type SandboxHandle, SCRIPTED_NUMBERS, startSandbox } from "../../../src/sandbox/index.js";
import { call, waitFor } from "./helpers.js";

const SETTLE_DELAY_MS = 30;
let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    settleDelayMs: SETTLE_DELAY_MS,
    rateLimitPerMinute: 0,
    initialBalance: 100_000,
  });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

async function pay(path: "/disburse" | "/collect", phoneNumber: string, amount = 1000) {
  const response = await call(sandbox, "POST", path, { body: { amount, phoneNumber } });
  expect(response.status).toBe(201);
  return PaymentSchema.parse(response.json);
}

/** Waits for a final status as a client would: by polling GET /payments/{id}. */
async function finalStatusOf(id: string): Promise<PaymentStatus> {
  return waitFor(async () => {
    const { status } = PaymentSchema.parse((await call(sandbox, "GET", `/payments/${id}`)).json);
    return status === "pending" ? undefined : knownStatus(status);
  }, `payment ${id} to settle`);
}

/** Lets more than a settle delay pass, then reads the status. */
async function statusAfterSettleDelay(id: string): Promise<PaymentStatus | undefined> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_DELAY_MS * 5));
  return knownStatus(sandbox.getPayment(id)?.status);
}

describe("Sandbox scripted numbers", () => {
  const finals = SCRIPTED_NUMBERS.filter(
    (entry) =>
      entry.outcome === "success" || entry.outcome === "failed" || entry.outcome === "canceled",
  );

  it.each(finals)("ends payments with $phone ($operator) as $outcome", async (entry) => {
    for (const path of ["/disburse", "/collect"] as const) {
      const payment = await pay(path, entry.phone);
      expect(payment.status).toBe("pending");
      expect(await finalStatusOf(payment.id)).toBe(entry.outcome);
      const settled = sandbox.getPayment(payment.id);
      expect(Date.parse(settled?.updatedAt ?? "")).toBeGreaterThanOrEqual(
        Date.parse(settled?.createdAt ?? ""),
      );
    }
  });

  it("keeps payments to the …0003 numbers pending forever", async () => {
    const mtn = await pay("/disburse", "237670000003");
    const orange = await pay("/collect", "237690000003");
    expect(await statusAfterSettleDelay(mtn.id)).toBe("pending");
    expect(await statusAfterSettleDelay(orange.id)).toBe("pending");
  });

  it("lists all five behaviours for both operators", () => {
    const outcomes = new Set(SCRIPTED_NUMBERS.map((entry) => `${entry.operator}:${entry.outcome}`));
    for (const operator of ["mtn", "orange"]) {
      for (const outcome of ["success", "failed", "pending", "no_account", "canceled"]) {
        expect(outcomes.has(`${operator}:${outcome}`)).toBe(true);
      }
    }
    expect(SCRIPTED_NUMBERS.every((entry) => entry.behaviour.length > 0)).toBe(true);
  });

  it("settles any other valid number as success", async () => {
    const payment = await pay("/disburse", "237655123456");
    expect(payment.telecomOperator).toBe("orange");
    expect(await finalStatusOf(payment.id)).toBe("success");
  });
});

describe("Sandbox merchant balance", () => {
  it("draws amount plus fee when a disbursement succeeds", async () => {
    const payment = await pay("/disburse", "237670000001", 10_000);
    expect(sandbox.snapshot().balance).toBe(100_000);
    expect(await finalStatusOf(payment.id)).toBe("success");
    expect(sandbox.snapshot().balance).toBe(100_000 - 10_000 - 100);
  });

  it("fails a disbursement the balance cannot cover and draws nothing", async () => {
    sandbox.setBalance(10_050);
    const payment = await pay("/disburse", "237670000001", 10_000);
    expect(await finalStatusOf(payment.id)).toBe("failed");
    expect(sandbox.snapshot().balance).toBe(10_050);
  });

  it("checks the balance at settlement, not at creation", async () => {
    const first = await pay("/disburse", "237670000001", 60_000);
    const second = await pay("/disburse", "237690000001", 60_000);
    const statuses = [await finalStatusOf(first.id), await finalStatusOf(second.id)];
    expect(statuses.sort()).toEqual(["failed", "success"]);
    expect(sandbox.snapshot().balance).toBe(100_000 - 60_600);
  });

  it("adds amount minus fee when a collection succeeds, and nothing when it fails", async () => {
    const good = await pay("/collect", "237670000001", 5000);
    const bad = await pay("/collect", "237670000002", 5000);
    expect(await finalStatusOf(good.id)).toBe("success");
    expect(await finalStatusOf(bad.id)).toBe("failed");
    expect(sandbox.snapshot().balance).toBe(100_000 + 5000 - 100);
  });

  it("draws nothing for failed or canceled disbursements", async () => {
    const failed = await pay("/disburse", "237670000002");
    const canceled = await pay("/disburse", "237690000005");
    expect(await finalStatusOf(failed.id)).toBe("failed");
    expect(await finalStatusOf(canceled.id)).toBe("canceled");
    expect(sandbox.snapshot().balance).toBe(100_000);
  });
});

describe("Sandbox forced statuses", () => {
  it("moves a pending-forever payment to the forced status without moving money", async () => {
    const payment = await pay("/disburse", "237670000003", 2000);
    sandbox.forceStatus(payment.id, "success");
    expect(sandbox.getPayment(payment.id)?.status).toBe("success");
    expect(sandbox.snapshot().balance).toBe(100_000);
  });

  it("cancels the scheduled settlement of a forced payment", async () => {
    sandbox.setSettleDelayMs(SETTLE_DELAY_MS);
    const payment = await pay("/disburse", "237670000001");
    sandbox.forceStatus(payment.id, "failed");
    expect(await statusAfterSettleDelay(payment.id)).toBe("failed");
    expect(sandbox.snapshot().balance).toBe(100_000);
  });

  it("throws on an unknown payment id", () => {
    expect(() => sandbox.forceStatus("pay_nope", "success")).toThrow(/pay_nope/);
  });

  it("applies a new settle delay to later payments", async () => {
    sandbox.setSettleDelayMs(60_000);
    const slow = await pay("/disburse", "237670000001");
    expect(await statusAfterSettleDelay(slow.id)).toBe("pending");
  });
});
