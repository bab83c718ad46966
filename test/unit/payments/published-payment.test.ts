/**
 * publishedPayment is the client's one-pass shortcut for answers exactly as published: it
 * must read every such answer as PaymentSchema does, and leave every other one to it.
 */
import { describe, expect, it } from "vitest";
import { PaymentSchema, paymentOddities, publishedPayment } from "../../../src/payments/schemas.js";

const FULL = {
  id: "pay_01HZX3",
  status: "pending",
  amount: 5000,
  fee: 50,
  currency: "XAF",
  description: "Courier, June",
  merchantId: 42,
  paymentType: "disbursement",
  phoneNumber: "237670000001",
  telecomOperator: "mtn",
  createdAt: "2025-06-01T10:00:00.000Z",
  updatedAt: "2025-06-01T10:00:05Z",
};

const AS_PUBLISHED: Record<string, unknown>[] = [
  FULL,
  { ...FULL, description: null, fee: null, currency: null },
  { id: "p1", status: "success" },
  { ...FULL, reference: "abc", meta: { a: 1 } },
  { ...FULL, id: "  padded  " },
  { ...FULL, phoneNumber: "" },
  { ...FULL, paymentType: "collection", telecomOperator: "orange", status: "failed" },
];

const NOT_AS_PUBLISHED: unknown[] = [
  { ...FULL, id: 12 },
  { ...FULL, id: "   " },
  { ...FULL, status: "weird" },
  { ...FULL, amount: "5000" },
  { ...FULL, telecomOperator: "airtel" },
  { status: "pending" },
  null,
  [],
];

describe("publishedPayment", () => {
  it.each(AS_PUBLISHED)("reads an answer as published as PaymentSchema does: %j", (body) => {
    expect(paymentOddities(body)).toEqual([]);
    expect(publishedPayment(body)).toEqual(PaymentSchema.parse(body));
  });

  it.each(NOT_AS_PUBLISHED)("leaves any other answer to PaymentSchema: %j", (body) => {
    expect(publishedPayment(body)).toBeUndefined();
  });

  it("leaves the body it reads as it was", () => {
    const body = { ...FULL, id: "  padded  ", fee: null, phoneNumber: "", extra: { a: 1 } };
    const before = structuredClone(body);
    const payment = publishedPayment(body);
    expect(payment).toMatchObject({ id: "padded", fee: undefined, phoneNumber: undefined });
    expect(body).toStrictEqual(before);
  });
});
