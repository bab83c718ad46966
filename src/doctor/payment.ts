/**
 * The Payment API as the bot will find it: the key (and request signing) accepted, the
 * answers' signatures verified, what operators are available, the environment, and this
 * machine's clock against the API's `Date`. Only GET requests: the doctor never moves money.
 */
import type { Config } from "../config/index.js";
import { PaymentClient } from "../payments/client.js";
import { SignatureError } from "../payments/errors.js";
import { OPERATIONAL } from "../payments/schemas.js";
import { checkPaymentApi, StartupError, signatureInWords } from "../startup-checks.js";
import { probe, shownUrl } from "./http-probe.js";
import { type CheckResult, fail, ok, warn, withinDeadline } from "./report.js";
import { startupFailure } from "./telegram.js";

const REQUEST_TIMEOUT_MS = 5000;

/**
 * Clock skew past which the doctor warns, and past which it fails. `Date` has whole
 * seconds and the answer takes its time, so a few seconds is noise. Signed requests and
 * answers carry a timestamp the other side refuses when it is five minutes off, and times
 * shown to people, limits' days and schedules' runs follow this clock: a minute is the most
 * the doctor lets pass.
 */
export const CLOCK_WARN_MS = 5_000;
export const CLOCK_FAIL_MS = 60_000;

/** The Payment API lines: key, signatures, availability, environment, clock. */
export async function paymentChecks(config: Config): Promise<CheckResult[]> {
  const { apiKey, baseUrl } = config.payment;
  if (!apiKey || !baseUrl) {
    return [fail("payment api", "PAYMENT_API_KEY or PAYMENT_API_BASE_URL is not set", "Set both.")];
  }
  const [answer, clock] = await Promise.all([
    availability(config, apiKey, baseUrl),
    clockCheck(baseUrl),
  ]);
  return [
    answer.key,
    signaturesCheck(config, answer.error),
    answer.operators,
    environmentCheck(config),
    clock,
  ];
}

async function availability(
  config: Config,
  apiKey: string,
  baseUrl: string,
): Promise<{ key: CheckResult; operators: CheckResult; error: unknown }> {
  const client = new PaymentClient({
    baseUrl,
    apiKey,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    // One try: the doctor says what happened rather than wait out a retry policy.
    retry: { maxAttempts: 1 },
    requestSigningKeyPem: config.payment.requestSigningKey,
    responseVerifyKeyPem: config.payment.signaturePublicKey,
  });
  const where = shownUrl(baseUrl);
  try {
    const entries = await withinDeadline(
      "the Payment API",
      REQUEST_TIMEOUT_MS + 1000,
      checkPaymentApi(client, baseUrl),
    );
    const down = entries.filter((entry) => entry.operation.status !== OPERATIONAL);
    const listed = entries.map((e) => `${e.operator} ${e.operation.type} ${e.operation.status}`);
    const operators =
      entries.length === 0
        ? warn("payment operators", "GET /availability listed no operator")
        : down.length > 0
          ? warn(
              "payment operators",
              listed.join(", "),
              "Payouts through a suspended operator are refused until it is back.",
            )
          : ok("payment operators", listed.join(", "));
    return {
      key: ok("payment api", `key accepted (GET /availability at ${where})`),
      operators,
      error: undefined,
    };
  } catch (error) {
    return {
      key: startupFailure("payment api", error, "Check PAYMENT_API_BASE_URL."),
      operators: warn("payment operators", "not checked: GET /availability failed"),
      error,
    };
  } finally {
    await client.close();
  }
}

/** Whether the signing keys match the API's: read from how the availability call went. */
function signaturesCheck(config: Config, error: unknown): CheckResult {
  const name = "payment signatures";
  const { signaturePublicKey, requestSigningKey, webhookUnsigned } = config.payment;
  // The answer came, but its X-Sig did not verify with our key.
  if (error instanceof StartupError && error.cause instanceof SignatureError) {
    return fail(
      name,
      `the API answered GET /availability ${signatureInWords(error.cause.problem)}`,
      "Set PAYMENT_SIGNATURE_PUBLIC_KEY to the verification key of this environment, from the merchant portal.",
    );
  }
  if (error !== undefined) return warn(name, "not checked: GET /availability failed");
  const parts = [
    signaturePublicKey ? "answers verified with PAYMENT_SIGNATURE_PUBLIC_KEY" : undefined,
    requestSigningKey ? "signed requests accepted" : undefined,
  ].filter((part) => part !== undefined);
  if (signaturePublicKey) return ok(name, parts.join(", "));
  const unsigned = webhookUnsigned
    ? "answers and callbacks not verified (PAYMENT_WEBHOOK_UNSIGNED=allow)"
    : "answers and callbacks not verified: PAYMENT_SIGNATURE_PUBLIC_KEY unset";
  return warn(
    name,
    [unsigned, ...parts].join(", "),
    "Set PAYMENT_SIGNATURE_PUBLIC_KEY to the verification key from the merchant portal.",
  );
}

/**
 * PAYMENT_ENV picks the rate limit (100 or 300 a minute): production's against a sandbox
 * would meet 429s. The API does not say which it is, so only the host's name can tell.
 */
function environmentCheck(config: Config): CheckResult {
  const name = "payment environment";
  const { env, baseUrl, rateLimitPerMinute } = config.payment;
  const host = baseUrl && URL.canParse(baseUrl) ? new URL(baseUrl).hostname : "";
  const fact = `${env} (${rateLimitPerMinute} requests a minute) at ${host}`;
  if (env === "production" && /sandbox|staging|test/i.test(host)) {
    return warn(
      name,
      `${fact}, a host named like a test one`,
      "Check PAYMENT_ENV and PAYMENT_API_BASE_URL go together.",
    );
  }
  if (env === "production" && baseUrl?.startsWith("http:")) {
    return fail(
      name,
      `${fact} over plain http`,
      "Use the https base URL from the merchant portal.",
    );
  }
  return ok(name, fact);
}

/** How far this clock is from the API's (ms, positive when ours is ahead), as a line. */
export function clockVerdict(skewMs: number): CheckResult {
  const name = "clock";
  const seconds = Math.abs(skewMs / 1000).toFixed(1);
  const side = skewMs > 0 ? "ahead of" : "behind";
  const fact = `${seconds} s ${side} the Payment API's Date`;
  const fix = "Run NTP on this machine (e.g. timedatectl set-ntp true, or chrony).";
  if (Math.abs(skewMs) > CLOCK_FAIL_MS) return fail(name, fact, fix);
  if (Math.abs(skewMs) > CLOCK_WARN_MS) return warn(name, fact, fix);
  return ok(name, `within ${CLOCK_WARN_MS / 1000} s of the Payment API's Date (${seconds} s)`);
}

/**
 * This machine's clock against the `Date` of the API's answer to a GET without the key
 * (every answer carries one, a 401 too, and the key is not sent twice). `Date` counts whole
 * seconds, so the skew is measured from the middle of the round trip and the second's
 * possible half is not counted against us.
 */
async function clockCheck(baseUrl: string): Promise<CheckResult> {
  const answer = await probe(`${baseUrl.replace(/\/+$/, "")}/availability`, {
    timeoutMs: REQUEST_TIMEOUT_MS,
  });
  if (!answer.answered)
    return warn("clock", `not checked: the Payment API did not answer (${answer.reason})`);
  const theirs = answer.date === undefined ? Number.NaN : Date.parse(answer.date);
  if (Number.isNaN(theirs))
    return warn("clock", "not checked: the Payment API's answer has no Date header");
  const oursMs = (answer.sentAtMs + answer.receivedAtMs) / 2;
  // Their Date is rounded down to the second: its middle is half a second later.
  const skewMs = oursMs - (theirs + 500);
  return clockVerdict(Math.abs(skewMs) <= 500 ? 0 : skewMs - Math.sign(skewMs) * 500);
}
