/**
 * The page itself: the few files `npm run build` writes from `web/` (an HTML shell, one
 * script, one stylesheet), read once at start and served from memory under `/app/`. Only
 * those names are served, so no path from a request ever reaches the file system.
 */
import { readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

export interface StaticFile {
  type: string;
  body: Buffer;
}

/** The servable files of `folder` by name (`index.html`, `app.js`, …). */
export function loadStaticFiles(folder: string): ReadonlyMap<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const name of readdirSync(folder)) {
    const type = TYPES[extname(name)];
    if (type === undefined) continue;
    files.set(name, { type, body: readFileSync(join(folder, name)) });
  }
  if (!files.has("index.html")) throw new Error(`the Mini App's page is not built in ${folder}`);
  return files;
}
