/**
 * The README is the first hour and docs/ the rest: it stays short, every page of docs/ is
 * reachable from it, no link points nowhere, and every setting is documented in one place.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const DOCS = readdirSync(join(ROOT, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/${name}`);

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchorsOf(markdown: string): Set<string> {
  const outsideCode = markdown.replace(/```[\s\S]*?```/g, "");
  const headings = [...outsideCode.matchAll(/^#{1,6} (.+)$/gm)].map((match) => match[1] ?? "");
  return new Set(headings.map(slug));
}

/** Relative links of a markdown file, as repository paths with their anchor. */
function linksOf(path: string): Array<{ target: string; anchor: string | undefined }> {
  const markdown = read(path).replace(/```[\s\S]*?```/g, "");
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? "")
    .filter((href) => !/^[a-z]+:/.test(href))
    .map((href) => {
      const [file = "", anchor] = href.split("#");
      const target = file === "" ? path : relative(ROOT, join(ROOT, dirname(path), file));
      return { target, anchor };
    });
}

describe("the README and docs/", () => {
  it("keeps the README to 400 lines at most", () => {
    expect(read("README.md").split("\n").length).toBeLessThanOrEqual(400);
  });

  it.each(["README.md", ...DOCS])("%s links only to files and headings that exist", (path) => {
    for (const { target, anchor } of linksOf(path)) {
      const all = readdirSync(join(ROOT, dirname(target)));
      expect(all, `${path} → ${target}`).toContain(target.split("/").at(-1));
      if (anchor && target.endsWith(".md")) {
        expect([...anchorsOf(read(target))], `${path} → ${target}#${anchor}`).toContain(anchor);
      }
    }
  });

  it("reaches every page of docs/ from the README", () => {
    const reached = new Set<string>();
    const queue = ["README.md"];
    while (queue.length > 0) {
      const path = queue.pop() ?? "";
      for (const { target } of linksOf(path)) {
        if (target.endsWith(".md") && !reached.has(target)) {
          reached.add(target);
          queue.push(target);
        }
      }
    }
    expect(DOCS.filter((page) => !reached.has(page))).toEqual([]);
  });

  it("documents every variable of .env.example in docs/configuration.md's tables", () => {
    const names = [...read(".env.example").matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map(
      (match) => match[1] ?? "",
    );
    expect(names.length).toBeGreaterThan(40);
    const configuration = read("docs/configuration.md");
    const missing = names.filter(
      (name) => !new RegExp(`^\\|[^|\\n]*\`${name}\``, "m").test(configuration),
    );
    expect(missing).toEqual([]);
  });
});
