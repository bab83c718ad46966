/**
 * Short-lived signed links to a file of the Mini App (the History's CSV), for Telegram's
 * `WebApp.downloadFile` (Bot API 8.0): Telegram's client fetches the URL itself, without the
 * page's `Authorization` header, so the link carries its own proof. A link names the file,
 * the query it was made for, the person it was made for (and their language), and when it
 * stops working; all of it is signed with HMAC-SHA256 under a key derived from the bot token
 * (a key of its own, so a link's signature can never stand in for init data's). The person's
 * role is read afresh when the link is used: a link outlives no removal. With several
 * merchants (MERCHANTS_FILE) the link names, and signs, the merchant it was made in: the
 * bot token is theirs in common, and nothing else in a request without init data says
 * whose file it is.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { LOCALES, type Locale } from "../../model/locale.js";

/** Under the Mini App's path, beside the page and its API. */
export const FILE_PREFIX = "/app/file/";

/** How long a link works: long enough for Telegram's download sheet, short enough to leak little. */
export const FILE_LINK_TTL_SECONDS = 300;

/** The parameters the link itself uses; everything else is the file's query. */
const OWN = ["m", "u", "lang", "exp", "sig"] as const;

function keyOf(botToken: string): Buffer {
  return createHmac("sha256", "MiniAppFileLink").update(botToken).digest();
}

/** What is signed: the file's name, then every parameter but `sig`, sorted. */
function canonical(name: string, params: URLSearchParams): string {
  const pairs = [...params.entries()]
    .filter(([key]) => key !== "sig")
    .sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a < b ? -1 : 1));
  return `${name}?${new URLSearchParams(pairs).toString()}`;
}

function signatureOf(botToken: string, name: string, params: URLSearchParams): string {
  return createHmac("sha256", keyOf(botToken)).update(canonical(name, params)).digest("base64url");
}

/**
 * The path (from the server's root) of a link to file `name` made with `query` for
 * `userId`, working for FILE_LINK_TTL_SECONDS from `nowMs`; and when it stops. `merchant`:
 * the merchant it is made in, when there are several.
 */
export function signFileLink(options: {
  botToken: string;
  name: string;
  query: URLSearchParams;
  userId: number;
  language: Locale;
  nowMs: number;
  merchant?: string | undefined;
}): { path: string; expiresAtMs: number } {
  const expSeconds = Math.floor(options.nowMs / 1000) + FILE_LINK_TTL_SECONDS;
  const params = new URLSearchParams();
  for (const [key, value] of options.query) {
    if (!(OWN as readonly string[]).includes(key)) params.append(key, value);
  }
  if (options.merchant !== undefined) params.set("m", options.merchant);
  params.set("u", String(options.userId));
  params.set("lang", options.language);
  params.set("exp", String(expSeconds));
  params.set("sig", signatureOf(options.botToken, options.name, params));
  return {
    path: `${FILE_PREFIX}${encodeURIComponent(options.name)}?${params}`,
    expiresAtMs: expSeconds * 1000,
  };
}

const LinkSchema = z.object({
  m: z.string().nullable(),
  u: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  lang: z.enum(LOCALES),
  exp: z.coerce.number().int().positive(),
  sig: z.string().regex(/^[\w-]{43}$/),
});

export type FileLinkCheck =
  | { outcome: "ok"; name: string; userId: number; language: Locale; query: URLSearchParams }
  /** Not one we signed: a changed name, query, person or time, or no signature (403). */
  | { outcome: "forged" }
  /** Ours, but past its time (410). */
  | { outcome: "expired" };

/** The merchant a link names (`m`), unchecked: where a front of several merchants sends it. */
export function merchantOfFileLink(url: URL): string | null {
  return url.searchParams.get("m");
}

/**
 * Checks a link's URL (under FILE_PREFIX) at `nowMs`, made in `merchant` (undefined: the
 * only one). Never throws for what a client sends.
 */
export function checkFileLink(
  url: URL,
  botToken: string,
  nowMs: number,
  merchant?: string,
): FileLinkCheck {
  let name: string;
  try {
    name = decodeURIComponent(url.pathname.slice(FILE_PREFIX.length));
  } catch {
    return { outcome: "forged" };
  }
  const own = LinkSchema.safeParse(
    Object.fromEntries(OWN.map((k) => [k, url.searchParams.get(k)])),
  );
  if (!own.success) return { outcome: "forged" };
  // Another merchant's link (or one of a single merchant's bot in a file of several) is
  // not this one's to serve, signed or not.
  if (own.data.m !== (merchant ?? null)) return { outcome: "forged" };
  const expected = Buffer.from(signatureOf(botToken, name, url.searchParams));
  const given = Buffer.from(own.data.sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    return { outcome: "forged" };
  }
  // Checked after the signature: an expired link is only told apart when it is ours.
  if (own.data.exp * 1000 <= nowMs) return { outcome: "expired" };
  const query = new URLSearchParams(url.searchParams);
  for (const key of OWN) query.delete(key);
  return { outcome: "ok", name, userId: own.data.u, language: own.data.lang, query };
}
