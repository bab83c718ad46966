/**
 * The Mini App's page as `npm run build` writes it: its first load (script and stylesheet)
 * stays under 150 KB gzipped (DESIGN.md), and its HTML carries no inline script or style
 * (the Content-Security-Policy would refuse them).
 */
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { buildWebPage } from "../../web/build.js";

describe("the Mini App's built page", () => {
  it("loads at most 150 KB of script and stylesheet, gzipped, and inlines nothing", async () => {
    const dir = await buildWebPage(join(tmpdir(), `payout-webapp-size-${process.pid}`));
    const script = await readFile(join(dir, "app.js"));
    const style = await readFile(join(dir, "app.css"));
    const html = await readFile(join(dir, "index.html"), "utf8");
    const gzipped = gzipSync(script).length + gzipSync(style).length;
    expect(script.length).toBeGreaterThan(1_000);
    expect(gzipped).toBeLessThanOrEqual(150 * 1024);
    expect(html).toContain('src="app.js"');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=|\son\w+=/);
  });
});
