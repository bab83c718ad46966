/**
 * The loader's includes: a `--!include name.lua` line becomes that fragment, each fragment
 * once per script, nested includes too; a cycle or a missing fragment stops the load.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { expandIncludes, loadScripts, luaScript } from "../../../../src/store/redis/scripts.js";

const fragments: Record<string, string> = {
  "a.lua": "local function a() return 1 end\n",
  "b.lua": "--!include a.lua\nlocal function b() return a() + 1 end\n",
  "loop.lua": "--!include loop.lua\n",
};
const read = (name: string) => {
  const text = fragments[name];
  if (text === undefined) throw new Error(`no include ${name}`);
  return text;
};

describe("expandIncludes", () => {
  it("puts each fragment in place of its line, nested ones included, each only once", () => {
    const source = expandIncludes("--!include b.lua\n--!include a.lua\nreturn b()\n", read);
    expect(source).toBe(
      "local function a() return 1 end\nlocal function b() return a() + 1 end\n" +
        "-- (a.lua included above)\nreturn b()\n",
    );
  });

  it("refuses an include cycle and a fragment that is not there", () => {
    expect(() => expandIncludes("--!include loop.lua\n", read)).toThrow(/include cycle/);
    expect(() => expandIncludes("--!include nowhere.lua\n", read)).toThrow(/no include/);
  });

  it("leaves other comments alone", () => {
    expect(expandIncludes("-- include a.lua\nreturn 1\n", read)).toBe(
      "-- include a.lua\nreturn 1\n",
    );
  });
});

describe("luaScript", () => {
  it("names a script by the SHA1 of its source, as Redis does", () => {
    // SHA1 of "return 1", as SCRIPT LOAD answers it.
    expect(luaScript("one", "return 1").sha1).toBe("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
  });
});

describe("loadScripts", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a folder with a .lua file that is not a known script", () => {
    dir = mkdtempSync(join(tmpdir(), "lua-"));
    mkdirSync(join(dir, "includes"));
    writeFileSync(join(dir, "stray.lua"), "return 1\n");
    expect(() => loadScripts(pathToFileURL(`${dir}/`))).toThrow(/stray\.lua/);
  });
});
