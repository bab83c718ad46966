/**
 * `npm start` builds first (`prestart`), but only what changed: a start with nothing
 * changed compiles and writes nothing (it used to cost a full `tsc` run every time). The
 * build holds the bot alone: the demo, the sandbox and the emulator are tools of the
 * repository, and the runtime image (which copies dist/) does not ship them; the doctor is
 * part of the bot, and runs from the build as `node dist/src/main.js doctor`.
 */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { harnessEnv, startServices } from "../../support/harness.js";
import { testPrefix } from "../../support/redis.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
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
    // The Lua scripts are read beside their loader at run time: the build carries each one.
    const lua = (dir: string) =>
      readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
        .filter((file) => file.endsWith(".lua"))
        .sort();
    expect(lua("dist/src/store/redis/lua")).toEqual(lua("src/store/redis/lua"));
    expect(lua("src/store/redis/lua")).toContain("payout-transition.lua");

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

describe("the doctor in the build", () => {
  it("runs as node dist/src/main.js doctor, exit 0 against a setup that holds", {
    timeout: 120_000,
  }, async () => {
    prestart("");
    const { sandbox, emulator } = await startServices();
    try {
      // Asynchronous: the sandbox and the emulator answer from this process meanwhile.
      const child = spawn(process.execPath, [join(ROOT, "dist/src/main.js"), "doctor"], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? "",
          ...harnessEnv(sandbox, emulator, testPrefix("doctor")),
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        output += chunk;
      });
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        output += chunk;
      });
      const [code] = await once(child, "exit");
      expect(output).toMatch(/^✓ telegram bot +@emulated_bot/m);
      expect(output).toMatch(/^✓ payment api +key accepted/m);
      expect(output).toMatch(/^✓ redis memory policy +noeviction/m);
      expect(output).toMatch(/0 failed \(ready\)\n$/);
      expect(code, output).toBe(0);
    } finally {
      await emulator.close();
      await sandbox.close();
    }
  });
});
