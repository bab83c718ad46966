/**
 * The bot under test runs as plain JavaScript, as `npm start` runs it, not under tsx:
 * tsx's loader thread alone adds ~40 MB of RSS and would blur the footprint and the
 * CPU figures. This transpiles src/ (and the few bench files the bot's process needs)
 * once per run into node_modules/.cache/momo-bench/<checkout>/, where node_modules still
 * resolves, with the locales and the Lua scripts beside it. The checkout's folder name keeps
 * git worktrees that share one node_modules (a symlink) from rebuilding under each other's
 * running bots.
 * Types are not checked here (`npm run typecheck` does that); each file is transpiled on
 * its own, which the project's `isolatedModules` settings guarantee is enough.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUT_DIR = join(REPO_ROOT, "node_modules", ".cache", "momo-bench", basename(REPO_ROOT));
/** What bot-process.ts and relay-process.ts need besides src/. */
const BENCH_FILES = [
  "bench/bot-process.ts",
  "bench/floor-bot.ts",
  "bench/relay-process.ts",
  "bench/child-io.ts",
  "bench/messages.ts",
  "bench/telegram-webhook.ts",
];

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

function transpile(source: string, outFile: string): void {
  const output = ts.transpileModule(readFileSync(source, "utf8"), {
    fileName: source,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      sourceMap: false,
    },
  });
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, output.outputText);
}

function build(): string {
  rmSync(OUT_DIR, { recursive: true, force: true });
  const sources = [
    ...typeScriptFiles(join(REPO_ROOT, "src")),
    ...BENCH_FILES.map((file) => join(REPO_ROOT, file)),
  ];
  for (const source of sources) {
    transpile(source, join(OUT_DIR, relative(REPO_ROOT, source)).replace(/\.ts$/, ".js"));
  }
  cpSync(join(REPO_ROOT, "locales"), join(OUT_DIR, "locales"), { recursive: true });
  // The Redis scripts are read beside their loader (src/store/redis/scripts.ts).
  const lua = join("src", "store", "redis", "lua");
  cpSync(join(REPO_ROOT, lua), join(OUT_DIR, lua), { recursive: true });
  // Inside node_modules the repo's package.json no longer applies: say these are ES modules.
  writeFileSync(join(OUT_DIR, "package.json"), '{ "type": "module" }\n');
  return OUT_DIR;
}

let built: string | undefined;

/** The root of the transpiled tree (built on first call), e.g. `<root>/bench/bot-process.js`. */
export function compiledRoot(): string {
  built ??= build();
  return built;
}
