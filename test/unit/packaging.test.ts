/**
 * The image ships what the tests ran: the Node major of every Dockerfile stage is the one
 * running these tests (CI's), and that Node satisfies `engines`. Secrets and local state
 * stay out of the build context.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const ROOT = new URL("../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), "utf8");

describe("compose.yaml", () => {
  const compose = read("compose.yaml");

  it("publishes the bot's port on 127.0.0.1 only, for the HTTPS proxy in front", () => {
    const ports = [...compose.matchAll(/^ {6}- "([^"]+)"$/gm)].map((match) => match[1]);
    expect(ports).toEqual(["127.0.0.1:8080:8080"]);
  });

  it("mounts the Payment API's public key as a secret where PAYMENT_SIGNATURE_PUBLIC_KEY points", () => {
    expect(compose).toMatch(
      /^ {6}PAYMENT_SIGNATURE_PUBLIC_KEY: \/run\/secrets\/payment-public\.pem$/m,
    );
    expect(compose).toMatch(
      /^ {4}secrets:\n {6}- source: payment_public_key\n {8}target: payment-public\.pem$/m,
    );
    expect(compose).toMatch(
      /^secrets:\n {2}payment_public_key:\n {4}file: \.\/secrets\/payment-public\.pem$/m,
    );
    // The key file stays out of git and of the build context.
    expect(read(".gitignore").split("\n")).toContain("secrets/");
    expect(read(".dockerignore").split("\n")).toContain("secrets");
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
