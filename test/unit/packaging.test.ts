/**
 * The image ships what the tests ran: the Node major of every Dockerfile stage is the one
 * running these tests (CI's), and that Node satisfies `engines`. Secrets and local state
 * stay out of the build context.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { SECRET_VARIABLES } from "../../src/config/secret-files.js";

const ROOT = new URL("../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), "utf8");

const ComposeSchema = z.object({
  services: z.object({
    bot: z.object({
      env_file: z.string(),
      environment: z.record(z.string(), z.string()),
      secrets: z.array(z.object({ source: z.string(), target: z.string() })),
      ports: z.array(z.string()),
    }),
    redis: z.object({ image: z.string(), command: z.array(z.string()) }),
  }),
  secrets: z.record(z.string(), z.object({ file: z.string() })),
});

/** A compose interpolation, `${NAME:-default}`, as compose.yaml writes it. */
const composeVar = (text: string) => `\${${text}}`;

describe("compose.yaml", () => {
  const compose = ComposeSchema.parse(parseYaml(read("compose.yaml")));
  const { bot, redis } = compose.services;

  it("publishes the bot's port on 127.0.0.1 only, for the HTTPS proxy in front", () => {
    expect(bot.ports).toEqual([
      `127.0.0.1:${composeVar("HTTP_PORT:-8080")}:${composeVar("HTTP_PORT:-8080")}`,
    ]);
  });

  it("gives every secret as a Docker secret file, through its X_FILE variable", () => {
    const files = Object.entries(bot.environment).filter(([name]) => name.endsWith("_FILE"));
    expect(files.map(([name]) => name.slice(0, -"_FILE".length)).sort()).toEqual(
      SECRET_VARIABLES.filter((name) => !name.startsWith("REDIS_")).sort(),
    );
    for (const [name, path] of files) {
      const mounted = bot.secrets.find((secret) => `/run/secrets/${secret.target}` === path);
      expect(mounted, name).toBeDefined();
      expect(compose.secrets[mounted?.source ?? ""]?.file, name).toMatch(/^\.\/secrets\//);
    }
    // The secret files stay out of git and of the build context.
    expect(read(".gitignore").split("\n")).toContain("secrets/");
    expect(read(".dockerignore").split("\n")).toContain("secrets");
  });

  it("overrides nothing .env sets: REDIS_URL only defaults to the redis service", () => {
    expect(bot.env_file).toBe(".env");
    expect(bot.environment.REDIS_URL).toBe(composeVar("REDIS_URL:-redis://redis:6379"));
    expect(Object.keys(bot.environment).filter((name) => !name.endsWith("_FILE"))).toEqual([
      "REDIS_URL",
    ]);
  });

  it("pins Redis to one version, with the AOF and noeviction", () => {
    expect(redis.image).toMatch(/^redis:7\.\d+\.\d+-alpine$/);
    expect(redis.command).toEqual(
      expect.arrayContaining(["--appendonly", "yes", "--maxmemory-policy", "noeviction"]),
    );
  });
});

describe("the Docker image", () => {
  it("runs every stage on the Node major the tests run on", () => {
    const images = [...read("Dockerfile").matchAll(/^FROM node:(\d+)[-\w.]* AS (\w+)$/gm)];
    expect(images.map((match) => match[2])).toEqual(["build", "runtime"]);
    const testedMajor = process.versions.node.split(".")[0];
    for (const [, major] of images) expect(major).toBe(testedMajor);
  });

  it("is tested on a Node that package.json's engines accepts", () => {
    const { engines } = z
      .object({ engines: z.object({ node: z.string() }) })
      .parse(JSON.parse(read("package.json")));
    const minimum = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(engines.node)?.slice(1).map(Number) ?? [];
    const running = process.versions.node.split(".").map(Number);
    expect(minimum).toHaveLength(3);
    const compare = (a: number[], b: number[]) =>
      a.reduce((order, value, i) => order || value - (b[i] ?? 0), 0);
    expect(compare(running, minimum)).toBeGreaterThanOrEqual(0);
  });

  it("runs node with the same flags as `npm start` and the benchmarks' app processes", () => {
    const start = /"start": "node ((?:--[\w-]+(?:=\w+)? )+)dist\/src\/main\.js start"/.exec(
      read("package.json"),
    );
    const cmd =
      /^CMD \["node", ((?:"--[\w-]+(?:=\w+)?", )+)"dist\/src\/main\.js", "start"\]$/m.exec(
        read("Dockerfile"),
      );
    const bench = /PRODUCTION_NODE_ARGS = \[([^\]]*)\]/.exec(read("bench/bots.ts"));
    const flags = start?.[1]?.trim().split(" ") ?? [];
    expect(flags).toContain("--max-semi-space-size=8");
    expect(
      cmd?.[1]
        ?.split(", ")
        .map((flag) => flag.replace(/"/g, ""))
        .filter(Boolean),
    ).toEqual(flags);
    expect(bench?.[1]?.split(", ").map((flag) => flag.replace(/"/g, ""))).toEqual(flags);
  });

  it("builds from src/ (the .lua scripts with it) and ships the build with its scripts", () => {
    const dockerfile = read("Dockerfile");
    expect(dockerfile).toMatch(/^COPY src \.\/src$/m);
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    expect(dockerfile).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
    const { scripts } = z
      .object({ scripts: z.object({ build: z.string(), "copy-lua": z.string() }) })
      .parse(JSON.parse(read("package.json")));
    expect(scripts.build).toContain("copy-lua");
    expect(scripts["copy-lua"]).toContain("'src/store/redis/lua','dist/src/store/redis/lua'");
  });

  it("leaves secrets, dependencies, history and build output out of the build context", () => {
    const ignored = read(".dockerignore")
      .split("\n")
      .map((line) => line.trim());
    for (const entry of [".env", ".env.*", ".git", "node_modules", "dist", "coverage"]) {
      expect(ignored).toContain(entry);
    }
  });
});
