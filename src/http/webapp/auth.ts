/**
 * Who is calling the Mini App's API. Every `/app/api/` request carries
 * `Authorization: tma <initData>`, the raw init data Telegram hands the page, signed with a
 * key derived from the bot token (HMAC-SHA256, Telegram's published rule, checked by
 * `@telegram-apps/init-data-node` rather than by hand). Refused (401) when the header is
 * missing, the hash is wrong or missing, a field is missing, or `auth_date` is older than
 * `maxAgeSeconds` or in the future (and, for any request that changes something, older
 * than FRESH_FOR_CHANGES_SECONDS: the handler asks `staleForChange`); then the user id is given a role the same way the bot
 * gives one on every update (the staff store, read afresh), and someone who is not staff is
 * refused (403). What each role may do is `payouts/policy.ts`'s answer, asked per route.
 */
import { validate } from "@telegram-apps/init-data-node";
import { z } from "zod";
import { type Locale, localeFromLanguageCode } from "../../model/locale.js";
import type { Role } from "../../model/roles.js";

/** The caller of a Mini App request, as `GET /app/api/me` answers it. */
export interface WebAppUser {
  id: number;
  role: Role;
  /** Telegram's first and last name. */
  name: string;
  /** The language chosen with /lang, else the Telegram app's. */
  language: Locale;
  /** The name of the merchant this page is about, for a person who works for several (MERCHANTS_FILE). */
  merchant?: string;
  /** That merchant's id, whenever the bot serves several (what the page's requests may name). */
  merchantId?: string;
  /** The merchants the person works for, for the page's switcher, when they are several. */
  merchants?: MerchantChoice[];
}

/** A merchant as the Mini App's switcher shows it. */
export interface MerchantChoice {
  id: string;
  name: string;
}

/** The merchant a request is served by, and every one the person works for (MERCHANTS_FILE). */
export interface WebAppMerchant extends MerchantChoice {
  mine: MerchantChoice[];
}

export interface WebAppAuthDeps {
  botToken: string;
  /** How old `auth_date` may be (`WEBAPP_AUTH_MAX_AGE_SECONDS`, default 3600). */
  maxAgeSeconds: number;
  /** Clock in ms. */
  now: () => number;
  /** The person's role now (null: not staff) and their /lang choice, read afresh per request. */
  staff: {
    roleOf(userId: number): Promise<Role | null>;
    savedLocale(userId: number): Promise<Locale | null>;
    /** The merchant serving this request and the person's others (MERCHANTS_FILE only). */
    merchantOf?(userId: number): Promise<WebAppMerchant>;
  };
}

/** Why a request was refused, for logs and for the page to say why. */
export type UnauthorizedReason =
  | "missing"
  | "malformed"
  | "bad_signature"
  | "no_user"
  | "expired"
  | "from_the_future"
  /** Fine for reading, too old to change anything (see FRESH_FOR_CHANGES_SECONDS). */
  | "stale_for_change";

export type WebAppAuthResult =
  /** `signedAtMs`: when Telegram signed the init data (`auth_date`), for steps that want it fresher. */
  | { outcome: "ok"; user: WebAppUser; signedAtMs: number }
  | { outcome: "unauthorized"; reason: UnauthorizedReason }
  | { outcome: "forbidden"; reason: "not_staff" };

/**
 * How old init data may be on a request that changes anything (every method but GET):
 * approving, rejecting, pausing, resuming, deleting, forgetting, confirming or setting a
 * PIN. Init data is a bearer credential a device keeps for the whole session, so a copy
 * lifted from one may be replayed: reads take it for WEBAPP_AUTH_MAX_AGE_SECONDS, changes
 * only for 10 minutes, after which the page must be opened again from the bot.
 */
export const FRESH_FOR_CHANGES_SECONDS = 600;

/** The 401 reason for a change whose init data is older than FRESH_FOR_CHANGES_SECONDS, or null. */
export function staleForChange(
  method: string,
  signedAtMs: number,
  nowMs: number,
): "stale_for_change" | null {
  if (method === "GET" || method === "HEAD") return null;
  return nowMs - signedAtMs > FRESH_FOR_CHANGES_SECONDS * 1000 ? "stale_for_change" : null;
}

/**
 * A clock a little ahead of ours is not an attack: Telegram's servers and this one disagree
 * by a second or two. Anything further ahead is refused as "in the future".
 */
const CLOCK_SKEW_SECONDS = 30;

/** Init data is a query string of a few hundred bytes; a longer header is not Telegram's. */
const MAX_INIT_DATA_CHARS = 8_192;

/** The part of Telegram's `user` field we use; other fields are Telegram's business. */
const InitDataUserSchema = z.object({
  id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  first_name: z.string().max(256),
  last_name: z.string().max(256).optional(),
  language_code: z.string().max(35).optional(),
});
type InitDataUser = z.infer<typeof InitDataUserSchema>;

function userOf(text: string | null): InitDataUser | null {
  if (text === null) return null;
  try {
    const parsed = InitDataUserSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The Telegram user id in an `Authorization: tma <initData>` header, NOT checked (to choose
 * who answers a request; that one checks it with authenticateWebApp), or undefined.
 */
export function uncheckedUserIdOf(header: string | undefined): number | undefined {
  const raw = initDataOf(header);
  return raw === null ? undefined : userOf(new URLSearchParams(raw).get("user"))?.id;
}

/** The raw init data of an `Authorization: tma <initData>` header, or null. */
export function initDataOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^tma\s+(\S+)$/i.exec(header.trim());
  return match?.[1] ?? null;
}

/**
 * Checks `header` (`Authorization`) and gives the caller their role. Pure but for the staff reads; never throws for anything a client sends.
 */
export async function authenticateWebApp(
  header: string | undefined,
  deps: WebAppAuthDeps,
): Promise<WebAppAuthResult> {
  const raw = initDataOf(header);
  if (raw === null) return { outcome: "unauthorized", reason: "missing" };
  if (raw.length > MAX_INIT_DATA_CHARS) return { outcome: "unauthorized", reason: "malformed" };
  try {
    // Age is checked below against our own clock (the library's reads Date.now and has
    // no notion of "in the future"): 0 turns its own check off.
    validate(raw, deps.botToken, { expiresIn: 0 });
  } catch {
    return { outcome: "unauthorized", reason: "bad_signature" };
  }
  const fields = new URLSearchParams(raw);
  const authSeconds = Number(fields.get("auth_date"));
  if (!Number.isSafeInteger(authSeconds)) return { outcome: "unauthorized", reason: "malformed" };
  const nowSeconds = Math.floor(deps.now() / 1000);
  if (authSeconds > nowSeconds + CLOCK_SKEW_SECONDS) {
    return { outcome: "unauthorized", reason: "from_the_future" };
  }
  if (nowSeconds - authSeconds > deps.maxAgeSeconds) {
    return { outcome: "unauthorized", reason: "expired" };
  }
  const user = userOf(fields.get("user"));
  if (user === null) return { outcome: "unauthorized", reason: "no_user" };
  const [role, saved, merchant] = await Promise.all([
    deps.staff.roleOf(user.id),
    deps.staff.savedLocale(user.id),
    deps.staff.merchantOf?.(user.id),
  ]);
  if (role === null) return { outcome: "forbidden", reason: "not_staff" };
  const name = [user.first_name, user.last_name].filter(Boolean).join(" ").slice(0, 129);
  return {
    outcome: "ok",
    signedAtMs: authSeconds * 1000,
    user: {
      id: user.id,
      role,
      name,
      language: saved ?? localeFromLanguageCode(user.language_code),
      ...merchantFields(merchant),
    },
  };
}

/** The merchant's fields of a WebAppUser: named, with the others, only to a person of several. */
export function merchantFields(
  merchant: WebAppMerchant | undefined,
): Pick<WebAppUser, "merchant" | "merchantId" | "merchants"> {
  if (merchant === undefined) return {};
  if (merchant.mine.length < 2) return { merchantId: merchant.id };
  return { merchantId: merchant.id, merchant: merchant.name, merchants: merchant.mine };
}

/** The caller as payouts/policy.ts asks about someone. */
export function askerOf(user: WebAppUser): { userId: number; role: Role } {
  return { userId: user.id, role: user.role };
}
