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

  it("leaves secrets, dependencies, history and build output out of the build context", () => {
    const ignored = read(".dockerignore")
      .split("\n")
      .map((line) => line.trim());
    for (const entry of [".env", ".env.*", ".git", "node_modules", "dist", "coverage"]) {
      expect(ignored).toContain(entry);
    }
  });
});
