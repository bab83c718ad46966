/**
 * The Mini App's page compressed once per content: every merchant's runtime (and each
 * reload) loads the same page, and brotli at quality 11 is slow enough to slow a start of
 * many merchants by seconds.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { loadStaticFiles } from "../../../src/http/webapp/static.js";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function page(script: string): string {
  const folder = mkdtempSync(join(tmpdir(), "static-files-"));
  folders.push(folder);
  writeFileSync(join(folder, "index.html"), '<script src="app.js"></script>');
  writeFileSync(join(folder, "app.js"), script);
  return folder;
}

describe("the Mini App's page, loaded by several runtimes", () => {
  it("compresses a content once, however many times and under however many names it is loaded", () => {
    const script = `console.log(${JSON.stringify("x".repeat(5000))});`;
    const first = loadStaticFiles(page(script));
    const second = loadStaticFiles(page(script));
    const plain = first.get("app.js");
    const hashed = [...first.keys()].find((name) => /^app\.[0-9a-f]{10}\.js$/.test(name));
    expect(hashed).toBeDefined();
    // The same buffers: compressed once, for both names and both loads.
    expect(first.get(hashed ?? "")?.encoded.br).toBe(plain?.encoded.br);
    expect(second.get("app.js")?.encoded.br).toBe(plain?.encoded.br);
    expect(second.get("app.js")?.encoded.gzip).toBe(plain?.encoded.gzip);
    expect(brotliDecompressSync(plain?.encoded.br ?? Buffer.alloc(0)).toString()).toBe(script);
  });

  it("serves a page rebuilt with new contents compressed from those contents", () => {
    const before = loadStaticFiles(page("console.log('before');"));
    const after = loadStaticFiles(page("console.log('after');"));
    const body = (files: typeof before, encoding: "br" | "gzip") => {
      const encoded = files.get("app.js")?.encoded[encoding] ?? Buffer.alloc(0);
      return (encoding === "br" ? brotliDecompressSync(encoded) : gunzipSync(encoded)).toString();
    };
    expect(body(before, "br")).toBe("console.log('before');");
    expect(body(after, "br")).toBe("console.log('after');");
    expect(body(after, "gzip")).toBe("console.log('after');");
  });
});
