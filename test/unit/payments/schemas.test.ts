import { describe, expect, it } from "vitest";
import {
  AvailabilityEntrySchema,
  AvailabilitySchema,
  FINAL_PAYMENT_STATUSES,
  HttpErrorSchema,
  OPERATIONAL,
  PaymentRequestSchema,
  PaymentSchema,
  UserInfoSchema,
} from "../../../src/payments/schemas.js";

const FULL_PAYMENT = {
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
} as const;

describe("PaymentSchema", () => {
  it("reads a payment with every field of the spec", () => {
    expect(PaymentSchema.parse(FULL_PAYMENT)).toEqual(FULL_PAYMENT);
  });

  it("reads a payment with only an id and a status", () => {
    expect(PaymentSchema.parse({ id: "p1", status: "success" })).toEqual({
      id: "p1",
      status: "success",
    });
  });

  it("keeps fields the spec does not name", () => {
    const parsed = PaymentSchema.parse({ ...FULL_PAYMENT, reference: "abc", meta: { a: 1 } });
    expect(parsed).toMatchObject({ reference: "abc", meta: { a: 1 } });
  });

  it.each(["pending", "success", "failed", "canceled"])("accepts the status %s", (status) => {
    expect(PaymentSchema.safeParse({ id: "p1", status }).success).toBe(true);
  });

  it.each([
    ["no id", { status: "pending" }],
    ["an empty id", { id: "", status: "pending" }],
    ["a numeric id", { id: 12, status: "pending" }],
    ["no status", { id: "p1" }],
    ["a status outside the enum", { id: "p1", status: "SUCCESSFUL" }],
    ["the British spelling cancelled", { id: "p1", status: "cancelled" }],
    ["the amount as a string", { ...FULL_PAYMENT, amount: "5000" }],
    ["a fractional amount", { ...FULL_PAYMENT, amount: 12.5 }],
    ["the fee as a string", { ...FULL_PAYMENT, fee: "50" }],
    ["the operator nexttel", { ...FULL_PAYMENT, telecomOperator: "nexttel" }],
    ["the operator in capitals", { ...FULL_PAYMENT, telecomOperator: "MTN" }],
    ["an unknown payment type", { ...FULL_PAYMENT, paymentType: "refund" }],
    ["the merchant id as a string", { ...FULL_PAYMENT, merchantId: "42" }],
    ["the phone number as a number", { ...FULL_PAYMENT, phoneNumber: 237670000001 }],
    ["a date as a number", { ...FULL_PAYMENT, createdAt: 1_717_236_000_000 }],
    ["an array", [FULL_PAYMENT]],
    ["null", null],
  ])("refuses a payment with %s", (_what, value) => {
    expect(PaymentSchema.safeParse(value).success).toBe(false);
  });

  it("names the final statuses: every status but pending", () => {
    expect([...FINAL_PAYMENT_STATUSES].sort()).toEqual(["canceled", "failed", "success"]);
  });
});

describe("PaymentRequestSchema", () => {
  it("accepts a whole positive amount and a number in digits, country code first", () => {
    const body = { amount: 5000, phoneNumber: "237670000001" };
    expect(PaymentRequestSchema.parse(body)).toEqual(body);
  });

  it("drops fields that are not part of the request", () => {
    expect(
      PaymentRequestSchema.parse({ amount: 1, phoneNumber: "237670000001", extra: true }),
    ).toEqual({ amount: 1, phoneNumber: "237670000001" });
  });

  it.each([
    ["a zero amount", { amount: 0, phoneNumber: "237670000001" }],
    ["a negative amount", { amount: -5, phoneNumber: "237670000001" }],
    ["a fractional amount", { amount: 1.5, phoneNumber: "237670000001" }],
    ["the amount as a string", { amount: "5000", phoneNumber: "237670000001" }],
    ["a plus sign in the number", { amount: 5000, phoneNumber: "+237670000001" }],
    ["spaces in the number", { amount: 5000, phoneNumber: "237 670 000 001" }],
    ["a seven-digit number", { amount: 5000, phoneNumber: "1234567" }],
    ["a sixteen-digit number", { amount: 5000, phoneNumber: "1234567890123456" }],
    ["no number", { amount: 5000 }],
  ])("refuses %s", (_what, body) => {
    expect(PaymentRequestSchema.safeParse(body).success).toBe(false);
  });
});

describe("AvailabilitySchema", () => {
  const entries = [
    { operator: "mtn", operation: { type: "disbursement", status: OPERATIONAL } },
    { operator: "orange", operation: { type: "collection", status: "SUSPENDED" } },
    { operator: "orange", operation: { type: "disbursement", status: "MAINTENANCE" } },
  ];

  it("reads a list of entries, an unknown status such as MAINTENANCE kept as a string", () => {
    expect(AvailabilitySchema.parse(entries)).toEqual(entries);
    expect(OPERATIONAL).toBe("OPERATIONAL");
  });

  it("reads an empty list", () => {
    expect(AvailabilitySchema.parse([])).toEqual([]);
  });

  it("keeps fields the spec does not name, on the entry and on the operation", () => {
    const entry = {
      operator: "mtn",
      since: "2025-06-01",
      operation: { type: "collection", status: OPERATIONAL, note: "ok" },
    };
    expect(AvailabilityEntrySchema.parse(entry)).toEqual(entry);
  });

  it.each([
    [
      "an unknown operator",
      { operator: "nexttel", operation: { type: "collection", status: "OPERATIONAL" } },
    ],
    [
      "an unknown operation type",
      { operator: "mtn", operation: { type: "refund", status: "OPERATIONAL" } },
    ],
    ["an empty status", { operator: "mtn", operation: { type: "collection", status: "" } }],
    [
      "a status that is not a string",
      { operator: "mtn", operation: { type: "collection", status: 1 } },
    ],
    ["no operation", { operator: "mtn" }],
  ])("refuses an entry with %s", (_what, entry) => {
    expect(AvailabilityEntrySchema.safeParse(entry).success).toBe(false);
    expect(AvailabilitySchema.safeParse([entry]).success).toBe(false);
  });

  it("refuses an object where a list belongs", () => {
    expect(AvailabilitySchema.safeParse(entries[0]).success).toBe(false);
  });
});

describe("UserInfoSchema", () => {
  it("reads a first and a last name, keeping extra fields", () => {
    const info = { firstName: "Awa", lastName: "Nkemelu", msisdn: "237670000001" };
    expect(UserInfoSchema.parse(info)).toEqual(info);
  });

  it("accepts empty names, which the spec does not forbid", () => {
    expect(UserInfoSchema.parse({ firstName: "", lastName: "" })).toEqual({
      firstName: "",
      lastName: "",
    });
  });

  it.each([
    ["no last name", { firstName: "Awa" }],
    ["a null first name", { firstName: null, lastName: "Nkemelu" }],
    ["a numeric last name", { firstName: "Awa", lastName: 7 }],
  ])("refuses user info with %s", (_what, value) => {
    expect(UserInfoSchema.safeParse(value).success).toBe(false);
  });
});

describe("HttpErrorSchema", () => {
  it("reads an error with details of any type", () => {
    const body = {
      message: "Validation failed",
      statusCode: 400,
      details: ["amount must be positive", { field: "phoneNumber" }, 3, null],
    };
    expect(HttpErrorSchema.parse(body)).toEqual(body);
  });

  it("reads an error without details", () => {
    expect(HttpErrorSchema.parse({ message: "Unauthorized", statusCode: 401 })).toEqual({
      message: "Unauthorized",
      statusCode: 401,
    });
  });

  it("keeps fields the spec does not name", () => {
    expect(HttpErrorSchema.parse({ message: "x", statusCode: 500, requestId: "r1" })).toMatchObject(
      { requestId: "r1" },
    );
  });

  it.each([
    ["no message", { statusCode: 400 }],
    ["no status code", { message: "x" }],
    ["the status code as a string", { message: "x", statusCode: "400" }],
    ["a fractional status code", { message: "x", statusCode: 400.5 }],
    ["details that are not a list", { message: "x", statusCode: 400, details: "bad" }],
    ["a plain-text body", "Internal Server Error"],
  ])("refuses an error body with %s", (_what, value) => {
    expect(HttpErrorSchema.safeParse(value).success).toBe(false);
  });
});
