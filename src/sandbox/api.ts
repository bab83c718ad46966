/**
 * The five endpoints of the spec, after authentication and rate limiting. Our choices
 * where the spec is silent:
 * - `phoneNumber` must be exactly `237` and nine digits of an MTN or Orange prefix;
 * - `amount` is a whole number of XAF from 1 to MAX_AMOUNT_XAF;
 * - 403 when the merchant's collections (or disbursements) are disabled, and also when the
 *   operator's operation is not OPERATIONAL, with details
 *   `[{reason: "OPERATION_SUSPENDED", operator, type, status}]`;
 * - 404 for an unknown payment id, an unknown user, and a payment to a number that has no
 *   mobile money account; 405 for a known path with another method.
 */
import { z } from "zod";
import { type ApiResponse, findRoute, httpError, ok, parseJson, type Route } from "./http-io.js";
import {
  checkPhoneNumber,
  OPERATIONAL,
  type PaymentType,
  SANDBOX_MAX_AMOUNT_XAF,
  type SandboxPhoneProblem,
  type TelecomOperator,
} from "./spec.js";
import type { SandboxState } from "./state.js";

const PHONE_PROBLEMS: Record<SandboxPhoneProblem, string> = {
  empty: "is required",
  not_digits: "must be digits only: 237 then 9 digits",
  wrong_length: "must be 237 then 9 digits",
  not_served: "is not an MTN or Orange mobile number",
};

/** A normalized MTN/Orange number: `237` + 9 digits, nothing else. */
const SandboxPhoneSchema = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
  .transform((value, ctx): { phone: string; operator: TelecomOperator } => {
    const checked = checkPhoneNumber(value);
    if (checked.ok) return { phone: value, operator: checked.operator };
    ctx.addIssue({ code: "custom", message: PHONE_PROBLEMS[checked.problem] });
    return z.NEVER;
  });

const POSITIVE_INTEGER = "must be a positive integer (XAF)";

const PaymentBodySchema = z.object(
  {
    amount: z
      .number({ error: (issue) => (issue.input === undefined ? "is required" : POSITIVE_INTEGER) })
      .int(POSITIVE_INTEGER)
      .positive(POSITIVE_INTEGER)
      .max(SANDBOX_MAX_AMOUNT_XAF, `must be at most ${SANDBOX_MAX_AMOUNT_XAF} XAF`),
    phoneNumber: SandboxPhoneSchema,
  },
  { error: "the body must be a JSON object" },
);

/** zod issues as HttpError details: one `{field, problem}` per distinct problem. */
export function detailsOf(error: z.ZodError): Array<{ field: string; problem: string }> {
  const seen = new Set<string>();
  const details: Array<{ field: string; problem: string }> = [];
  for (const issue of error.issues) {
    const field = issue.path.map(String).join(".") || "body";
    const key = `${field}\n${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push({ field, problem: issue.message });
  }
  return details;
}

function invalid(field: string, problem: string): ApiResponse {
  return httpError(400, "invalid request", [{ field, problem }]);
}

const REFUSED_BY_MERCHANT: Record<PaymentType, { message: string; reason: string }> = {
  collection: { message: "collection disabled", reason: "COLLECTION_DISABLED" },
  disbursement: { message: "disbursement disabled", reason: "DISBURSEMENT_DISABLED" },
};

/** The account of a key not grouped in `accounts`: every key, by default. */
export const DEFAULT_ACCOUNT = "default";

function createPayment(
  state: SandboxState,
  paymentType: PaymentType,
  raw: string,
  account: string,
): ApiResponse {
  if (raw.trim() === "") return invalid("body", "is required");
  const json = parseJson(raw);
  if (json === undefined) return invalid("body", "must be valid JSON");
  const parsed = PaymentBodySchema.safeParse(json);
  if (!parsed.success) return httpError(400, "invalid request", detailsOf(parsed.error));
  const { amount, phoneNumber } = parsed.data;
  const enabled =
    paymentType === "collection" ? state.collectionsEnabled : state.disbursementsEnabled;
  if (!enabled) {
    const { message, reason } = REFUSED_BY_MERCHANT[paymentType];
    return httpError(403, message, [{ reason }]);
  }
  const status = state.availabilityOf(phoneNumber.operator, paymentType);
  if (status !== OPERATIONAL) {
    return httpError(403, `${phoneNumber.operator} ${paymentType} is not available`, [
      { reason: "OPERATION_SUSPENDED", operator: phoneNumber.operator, type: paymentType, status },
    ]);
  }
  if (state.registeredName(phoneNumber.phone) === null) {
    return httpError(404, "no mobile money account for this number", [
      { field: "phoneNumber", problem: "has no registered mobile money account" },
    ]);
  }
  const payment = state.createPayment(
    {
      paymentType,
      amount,
      phoneNumber: phoneNumber.phone,
      telecomOperator: phoneNumber.operator,
    },
    account,
  );
  return ok(payment, 201);
}

/** Another account's payment is not found, as on the real API. */
function getPayment(state: SandboxState, id: string, account: string): ApiResponse {
  const payment = state.getPayment(id);
  if (payment && state.accountOfPayment(id) === account) return ok(payment);
  return httpError(404, "payment not found", [{ field: "id", problem: "no payment has this id" }]);
}

function getUserInfo(state: SandboxState, phoneText: string): ApiResponse {
  const parsed = SandboxPhoneSchema.safeParse(phoneText);
  if (!parsed.success) {
    const problem = parsed.error.issues[0]?.message ?? "is not valid";
    return invalid("phoneNumber", problem);
  }
  const name = state.registeredName(parsed.data.phone);
  if (name) return ok(name);
  return httpError(404, "user not found", [
    { field: "phoneNumber", problem: "has no registered mobile money account" },
  ]);
}

/** `decodeURIComponent` that answers `undefined` on a malformed escape. */
function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

type Handler = (state: SandboxState, param: string, body: string, account: string) => ApiResponse;

const ROUTES: readonly Route<Handler>[] = [
  {
    pattern: /^\/collect$/,
    methods: { POST: (s, _p, body, account) => createPayment(s, "collection", body, account) },
  },
  {
    pattern: /^\/disburse$/,
    methods: { POST: (s, _p, body, account) => createPayment(s, "disbursement", body, account) },
  },
  {
    pattern: /^\/payments\/([^/]+)$/,
    methods: { GET: (s, id, _body, account) => getPayment(s, id, account) },
  },
  { pattern: /^\/availability$/, methods: { GET: (s) => ok(s.availabilityEntries()) } },
  { pattern: /^\/data\/userinfo\/([^/]+)$/, methods: { GET: (s, phone) => getUserInfo(s, phone) } },
];

/** Answers an authenticated, admitted API request. `path` has no query. */
export function routeApi(
  state: SandboxState,
  method: string,
  path: string,
  body: string,
  account: string = DEFAULT_ACCOUNT,
): ApiResponse {
  const found = findRoute(ROUTES, method, path);
  if (found.refusal) return found.refusal;
  const param = decodeSegment(found.param);
  if (param === undefined) return invalid("path", "has a malformed %-escape");
  return found.handler(state, param, body, account);
}
