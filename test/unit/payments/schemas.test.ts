import { describe, expect, it } from "vitest";
import {
  FINAL_PAYMENT_STATUSES,
  knownOperator,
  knownStatus,
} from "../../../src/model/payment-terms.js";
import {
  AvailabilityEntrySchema,
  AvailabilitySchema,
  HttpErrorSchema,
  OPERATIONAL,
  PaymentRequestSchema,
  PaymentSchema,
  paymentOddities,
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

  it("reads the real service's 201 example: a null description reads as absent", () => {
    const parsed = PaymentSchema.parse({ ...FULL_PAYMENT, description: null });
    expect(parsed.description).toBeUndefined();
    expect(parsed).toMatchObject({ id: FULL_PAYMENT.id, amount: 5000, merchantId: 42 });
    expect(paymentOddities({ ...FULL_PAYMENT, description: null })).toEqual([]);
  });

  it("reads an id sent as a number as its decimal text", () => {
    expect(PaymentSchema.parse({ id: 12, status: "pending" }).id).toBe("12");
  });

  it.each([
    ["no status", { id: "p1" }, "status", undefined],
    ["a status outside the enum", { id: "p1", status: "SUCCESSFUL" }, "status", "SUCCESSFUL"],
    ["the British spelling cancelled", { id: "p1", status: "cancelled" }, "status", "cancelled"],
    [
      "the operator nexttel",
      { ...FULL_PAYMENT, telecomOperator: "nexttel" },
      "telecomOperator",
      "nexttel",
    ],
    [
      "the operator in capitals",
      { ...FULL_PAYMENT, telecomOperator: "MTN" },
      "telecomOperator",
      "MTN",
    ],
    [
      "an unknown payment type",
      { ...FULL_PAYMENT, paymentType: "refund" },
      "paymentType",
      "refund",
    ],
  ])(
    "reads a payment with %s, keeping what was sent and reporting it as odd",
    (_what, value, field, kept) => {
      const parsed = PaymentSchema.parse(value);
      expect(parsed[field]).toBe(kept);
      expect(paymentOddities(value).some((problem) => problem.startsWith(field))).toBe(true);
    },
  );

  it.each([
    ["the amount as a string", { ...FULL_PAYMENT, amount: "5000" }, "amount"],
    ["a fractional amount", { ...FULL_PAYMENT, amount: 12.5 }, "amount"],
    ["the fee as a string", { ...FULL_PAYMENT, fee: "50" }, "fee"],
    ["the merchant id as a string", { ...FULL_PAYMENT, merchantId: "42" }, "merchantId"],
    ["the phone number as a number", { ...FULL_PAYMENT, phoneNumber: 237670000001 }, "phoneNumber"],
    ["a date as a number", { ...FULL_PAYMENT, createdAt: 1_717_236_000_000 }, "createdAt"],
  ])("reads a payment with %s, that field as absent and reported as odd", (_what, value, field) => {
    const parsed = PaymentSchema.parse(value);
    expect(parsed.id).toBe(FULL_PAYMENT.id);
    expect(parsed[field]).toBeUndefined();
    expect(paymentOddities(value).some((problem) => problem.startsWith(field))).toBe(true);
  });

  it.each([
    ["no id", { status: "pending" }],
    ["an empty id", { id: "", status: "pending" }],
    ["an id that is an object", { id: { value: "p1" }, status: "pending" }],
    ["an array", [FULL_PAYMENT]],
    ["null", null],
  ])("refuses a payment with %s: there is nothing to track", (_what, value) => {
    expect(PaymentSchema.safeParse(value).success).toBe(false);
  });

  it("knows the four statuses of the spec and nothing else", () => {
    expect(knownStatus("canceled")).toBe("canceled");
    expect(knownStatus("cancelled")).toBeUndefined();
    expect(knownStatus(undefined)).toBeUndefined();
    expect(knownOperator("orange")).toBe("orange");
    expect(knownOperator("MTN")).toBeUndefined();
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

  it("keeps an entry for an operator or operation type it does not know", () => {
    const unknown = [
      { operator: "nexttel", operation: { type: "collection", status: "OPERATIONAL" } },
      { operator: "mtn", operation: { type: "refund", status: "OPERATIONAL" } },
    ];
    expect(AvailabilitySchema.parse(unknown)).toEqual(unknown);
  });

  it.each([
    ["an empty status", { operator: "mtn", operation: { type: "collection", status: "" } }],
    [
      "a status that is not a string",
      { operator: "mtn", operation: { type: "collection", status: 1 } },
    ],
    ["no operation", { operator: "mtn" }],
    [
      "a null operator",
      { operator: null, operation: { type: "collection", status: "OPERATIONAL" } },
    ],
  ])("leaves out an entry with %s and keeps the others", (_what, entry) => {
    expect(AvailabilityEntrySchema.safeParse(entry).success).toBe(false);
    expect(AvailabilitySchema.parse([entry, entries[0]])).toEqual([entries[0]]);
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
    ["no last name", { firstName: "Awa" }, { firstName: "Awa", lastName: "" }],
    [
      "a null first name",
      { firstName: null, lastName: "Nkemelu" },
      { firstName: "", lastName: "Nkemelu" },
    ],
    ["a numeric last name", { firstName: "Awa", lastName: 7 }, { firstName: "Awa", lastName: "" }],
  ])("reads user info with %s, the odd part as empty", (_what, value, read) => {
    expect(UserInfoSchema.parse(value)).toEqual(read);
  });

  it("refuses a body that is not an object", () => {
    expect(UserInfoSchema.safeParse("Awa Nkemelu").success).toBe(false);
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
    ["no status code", { message: "x" }],
    ["the status code as a string", { message: "x", statusCode: "400" }],
    ["a fractional status code", { message: "x", statusCode: 400.5 }],
    ["details that are not a list", { message: "x", statusCode: 400, details: "bad" }],
  ])("reads an error body with %s: the message is what matters", (_what, value) => {
    expect(HttpErrorSchema.parse(value).message).toBe("x");
  });

  it.each([
    ["no message", { statusCode: 400 }],
    ["a plain-text body", "Internal Server Error"],
  ])("refuses an error body with %s", (_what, value) => {
    expect(HttpErrorSchema.safeParse(value).success).toBe(false);
  });
});
