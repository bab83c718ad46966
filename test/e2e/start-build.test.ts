/**
 * `npm start` builds first (`prestart`), but only what changed: a start with nothing
 * changed compiles and writes nothing (it used to cost a full `tsc` run every time). The
 * build holds the bot alone: the demo, the sandbox and the emulator are tools of the
 * repository, and the runtime image (which copies dist/) does not ship them.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PackageSchema = z.object({ scripts: z.object({ prestart: z.string() }) });

/** Runs `npm start`'s prestart command as npm would (node_modules/.bin on the PATH). */
function prestart(extraArgs: string): string {
  const { scripts } = PackageSchema.parse(
    JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")),
  );
  const result = spawnSync("sh", ["-c", `${scripts.prestart} ${extraArgs}`], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH ?? ""}` },
  });
  expect(result.status, result.stdout + result.stderr).toBe(0);
  return result.stdout;
}

describe("npm start", () => {
  it("does not compile again when no source changed", { timeout: 120_000 }, () => {
    prestart(""); // brings dist/ up to date, whatever state it was in
    const built = join(ROOT, "dist/src/main.js");
    const before = statSync(built).mtimeMs;

    const again = prestart("--verbose");
    expect(again).toMatch(/Project 'tsconfig\.build\.json' is up to date/);
    expect(statSync(built).mtimeMs).toBe(before);
  });
});

describe("the build", () => {
  it("holds the bot alone, and says where the tools are when one is asked for", {
    timeout: 120_000,
  }, () => {
    prestart("");
    const files = readdirSync(join(ROOT, "dist/src"), { recursive: true, encoding: "utf8" });
    expect(files.filter((file) => /^(dev|sandbox)\//.test(file))).toEqual([]);
    expect(existsSync(join(ROOT, "dist/src/main.js"))).toBe(true);
    expect(existsSync(join(ROOT, "dist/src/payouts/submission.js"))).toBe(true);
    // The Lua scripts kept in .lua files are read beside the code.
    expect(existsSync(join(ROOT, "dist/src/store/redis/lua/recipient-write.lua"))).toBe(true);

    for (const tool of ["demo", "sandbox", "emulator"]) {
      const run = spawnSync(process.execPath, [join(ROOT, "dist/src/main.js"), tool], {
        cwd: ROOT,
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "" },
      });
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`"${tool}" is a development tool and is not part of this build`);
      expect(run.stderr).toContain(`npm run ${tool}`);
    }
  });
});
