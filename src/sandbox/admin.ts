/**
 * The admin surface under `/_sandbox/`: what tests and the demo use to look inside the
 * sandbox and steer it over HTTP. No API key, no rate limit, no signatures, and only from
 * loopback addresses (403 otherwise), since it can move any payment to any status.
 * Setters answer 200 with the state snapshot after the change.
 */
import { z } from "zod";
import { detailsOf } from "./api.js";
import type { SandboxControls } from "./controls.js";
import { FaultBodySchema } from "./faults.js";
import { type ApiResponse, findRoute, httpError, ok, parseJson, type Route } from "./http-io.js";
import { SCRIPTED_NUMBERS } from "./scripted.js";
import { PaymentStatusSchema, PaymentTypeSchema, TelecomOperatorSchema } from "./spec.js";

export const ADMIN_PREFIX = "/_sandbox/";

export interface AdminContext {
  controls: SandboxControls;
  publicKeyPem: string;
}

type AdminHandler = (context: AdminContext, param: string, body: string) => ApiResponse;

const StatusBodySchema = z.object({
  status: PaymentStatusSchema,
  description: z.string().max(500).optional(),
});
const AvailabilityBodySchema = z.object({
  operator: TelecomOperatorSchema,
  type: PaymentTypeSchema,
  status: z.string().regex(/^[A-Z][A-Z_]{0,39}$/, "must be an upper-case word like OPERATIONAL"),
});
const EnabledBodySchema = z.object({ enabled: z.boolean() });
const CallbackUrlBodySchema = z.object({
  url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL or null" }).nullable(),
});
const SettleDelayBodySchema = z.object({ ms: z.number().int().min(0).max(86_400_000) });
const BalanceBodySchema = z.object({ amount: z.number().int().min(0).max(1e15) });

/** A POST handler that parses its body with `schema` (400 with details on garbage). */
function withBody<T>(
  schema: z.ZodType<T>,
  act: (context: AdminContext, value: T, param: string) => ApiResponse,
): AdminHandler {
  return (context, param, body) => {
    const json = parseJson(body);
    if (json === undefined) {
      return httpError(400, "invalid request", [{ field: "body", problem: "must be JSON" }]);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) return httpError(400, "invalid request", detailsOf(parsed.error));
    return act(context, parsed.data, param);
  };
}

/** Runs a setter, then answers with the state it left. */
function thenSnapshot(context: AdminContext, change: () => void): ApiResponse {
  change();
  return ok(context.controls.snapshot());
}

/** A POST setter: the body parsed with `schema` is applied, then the state is the answer. */
function setter<T>(
  schema: z.ZodType<T>,
  apply: (controls: SandboxControls, value: T) => void,
): AdminHandler {
  return withBody(schema, (c, value) => thenSnapshot(c, () => apply(c.controls, value)));
}

const ROUTES: readonly Route<AdminHandler>[] = [
  {
    pattern: /^public-key$/,
    methods: {
      GET: (c) => ({
        status: 200,
        body: c.publicKeyPem,
        headers: { "content-type": "application/x-pem-file" },
      }),
    },
  },
  { pattern: /^requests$/, methods: { GET: (c) => ok(c.controls.recordedRequests()) } },
  { pattern: /^scripted$/, methods: { GET: () => ok(SCRIPTED_NUMBERS) } },
  { pattern: /^state$/, methods: { GET: (c) => ok(c.controls.snapshot()) } },
  { pattern: /^callbacks$/, methods: { GET: (c) => ok(c.controls.callbackAttempts()) } },
  {
    pattern: /^payments\/([^/]+)\/status$/,
    methods: {
      POST: withBody(StatusBodySchema, (c, { status, description }, id) => {
        const payment = c.controls.forceStatus(id, status, description);
        if (payment) return ok(payment);
        return httpError(404, "payment not found", [
          { field: "id", problem: "no payment has this id" },
        ]);
      }),
    },
  },
  {
    pattern: /^availability$/,
    methods: {
      POST: setter(AvailabilityBodySchema, (c, { operator, type, status }) =>
        c.setAvailability(operator, type, status),
      ),
    },
  },
  {
    pattern: /^collections$/,
    methods: {
      POST: setter(EnabledBodySchema, (c, { enabled }) => c.setCollectionsEnabled(enabled)),
    },
  },
  {
    pattern: /^disbursements$/,
    methods: {
      POST: setter(EnabledBodySchema, (c, { enabled }) => c.setDisbursementsEnabled(enabled)),
    },
  },
  {
    pattern: /^faults$/,
    methods: { POST: setter(FaultBodySchema, (c, fault) => c.injectFault(fault)) },
  },
  {
    pattern: /^callback-url$/,
    methods: {
      POST: setter(CallbackUrlBodySchema, (c, { url }) => c.setCallbackUrl(url ?? undefined)),
    },
  },
  {
    pattern: /^settle-delay$/,
    methods: { POST: setter(SettleDelayBodySchema, (c, { ms }) => c.setSettleDelayMs(ms)) },
  },
  {
    pattern: /^balance$/,
    methods: { POST: setter(BalanceBodySchema, (c, { amount }) => c.setBalance(amount)) },
  },
  { pattern: /^reset$/, methods: { POST: (c) => thenSnapshot(c, () => c.controls.reset()) } },
];

/** Answers an admin request; `path` has no query and starts with ADMIN_PREFIX. */
export function routeAdmin(
  context: AdminContext,
  method: string,
  path: string,
  body: string,
): ApiResponse {
  const found = findRoute(ROUTES, method, path.slice(ADMIN_PREFIX.length));
  if (found.refusal) return found.refusal;
  return found.handler(context, found.param, body);
}
