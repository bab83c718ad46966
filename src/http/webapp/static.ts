/**
 * The page itself: the few files `npm run build` writes from `web/` (an HTML shell, one
 * script, one stylesheet), read once at start and served from memory under `/app/`. Only
 * those names are served, so no path from a request ever reaches the file system.
 *
 * At load, the script and the stylesheet also get a name with their content's hash
 * (`app.3f9c1a2b7d.js`), which the HTML served refers to: those never change, so browsers
 * and Telegram's web views keep them for a year (`immutable`), while the HTML is asked again
 * each time (`no-cache`) and names the new ones after an upgrade. Each file is compressed
 * once here, gzip and brotli, and the client's Accept-Encoding picks one.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

/** Types worth compressing (images are already). */
const TEXT = /^(text\/|image\/svg)/;

export type Encoding = "br" | "gzip";

export interface StaticFile {
  type: string;
  body: Buffer;
  /** The same body compressed, when it is text. */
  encoded: Partial<Record<Encoding, Buffer>>;
  /** Named with its content's hash: cached for a year. */
  immutable: boolean;
}

/**
 * Compressed bodies by their content (type and sha256): brotli at quality 11 takes a quarter
 * of a second for the script, and with MERCHANTS_FILE every merchant's runtime loads the same
 * page (and loads it again on a reload), so each content is compressed once per process. A
 * page rebuilt in place has new contents; the few old ones are dropped past MAX_COMPRESSED.
 */
const compressed = new Map<string, Record<Encoding, Buffer>>();
const MAX_COMPRESSED = 32;

function compress(type: string, body: Buffer): Record<Encoding, Buffer> {
  const key = `${type}\0${createHash("sha256").update(body).digest("hex")}`;
  const known = compressed.get(key);
  if (known !== undefined) return known;
  const br = brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
  const encoded = { br, gzip: gzipSync(body, { level: 9 }) };
  if (compressed.size >= MAX_COMPRESSED) compressed.clear();
  compressed.set(key, encoded);
  return encoded;
}

function staticFile(type: string, body: Buffer, immutable: boolean): StaticFile {
  if (!TEXT.test(type)) return { type, body, encoded: {}, immutable };
  return { type, body, encoded: compress(type, body), immutable };
}

/** `app.js` → `app.<10 hex of its sha256>.js`. */
function hashedName(name: string, body: Buffer): string {
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 10);
  const ext = extname(name);
  return `${name.slice(0, -ext.length)}.${hash}${ext}`;
}

/**
 * The servable files of `folder` by name (`index.html`, `app.js`, `app.<hash>.js`, …);
 * index.html refers to the hashed names.
 */
export function loadStaticFiles(folder: string): ReadonlyMap<string, StaticFile> {
  const raw = new Map<string, { type: string; body: Buffer }>();
  for (const name of readdirSync(folder)) {
    const type = TYPES[extname(name)];
    if (type === undefined) continue;
    raw.set(name, { type, body: readFileSync(join(folder, name)) });
  }
  const index = raw.get("index.html");
  if (index === undefined) throw new Error(`the Mini App's page is not built in ${folder}`);
  const files = new Map<string, StaticFile>();
  let html = index.body.toString("utf8");
  for (const [name, { type, body }] of raw) {
    if (name === "index.html") continue;
    // The plain name stays servable (a page loaded before an upgrade may still ask for it).
    files.set(name, staticFile(type, body, false));
    if (name.endsWith(".js") || name.endsWith(".css")) {
      const hashed = hashedName(name, body);
      files.set(hashed, staticFile(type, body, true));
      html = html.replaceAll(`"${name}"`, `"${hashed}"`);
    }
  }
  files.set("index.html", staticFile(index.type, Buffer.from(html), false));
  return files;
}

/**
 * The encoding to send `file` in for `acceptEncoding` (the request's header): brotli, then
 * gzip, when the client takes it (a q of 0 refuses); none otherwise.
 */
export function chooseEncoding(
  file: StaticFile,
  acceptEncoding: string | undefined,
): Encoding | null {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? "").split(",")) {
    const [token = "", ...params] = part.trim().toLowerCase().split(";");
    if (token === "") continue;
    const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find(Boolean);
    accepted.set(token, q === undefined ? 1 : Number(q));
  }
  const takes = (encoding: Encoding) => {
    const q = accepted.get(encoding) ?? accepted.get("*");
    return q !== undefined && q > 0 && file.encoded[encoding] !== undefined;
  };
  if (takes("br")) return "br";
  if (takes("gzip")) return "gzip";
  return null;
}
