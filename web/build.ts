/**
 * Builds the Mini App's page with esbuild: `web/src/main.ts` (and what it imports) into one
 * minified script, `web/style.css` into one stylesheet, and `web/index.html` copied beside
 * them, in `dist/web/` (or the folder given). Run by `npm run build`; tests, the demo and
 * the emulator call `buildWebPage` themselves.
 */
import { copyFile, mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const HERE = fileURLToPath(new URL("./", import.meta.url));
export const DEFAULT_WEB_OUT_DIR = fileURLToPath(new URL("../dist/web/", import.meta.url));

/** Writes index.html, app.js and app.css to `outDir`; answers the folder. */
export async function buildWebPage(outDir = DEFAULT_WEB_OUT_DIR): Promise<string> {
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: { app: `${HERE}src/main.ts` },
    bundle: true,
    minify: true,
    format: "iife",
    target: "es2020",
    outdir: outDir,
    logLevel: "warning",
    legalComments: "none",
  });
  await build({
    entryPoints: { app: `${HERE}style.css` },
    bundle: true,
    minify: true,
    outdir: outDir,
    logLevel: "warning",
  });
  await copyFile(`${HERE}index.html`, `${outDir}/index.html`);
  return outDir;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = await buildWebPage(process.argv[2]);
  console.log(`Mini App page built in ${out}`);
}
