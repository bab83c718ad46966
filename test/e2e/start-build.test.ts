/**
 * `npm start` builds first (`prestart`), but only what changed: a start with nothing
 * changed compiles and writes nothing (it used to cost a full `tsc` run every time).
 */
import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
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
