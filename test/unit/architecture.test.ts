/**
 * The layer rules of shared/DESIGN.md. The sandbox stands in for the outside world, so it
 * imports nothing of the client, the payout logic, the stores or the bot (a shared
 * misreading would pass every test against it); the model is the vocabulary under
 * everything and imports nothing of ours; the stores implement interfaces over it and never
 * reach up, their Redis and memory versions apart, their Lua in .lua files; one module
 * sends payments; and files stay small enough to read.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_AMOUNT_XAF } from "../../src/model/money.js";
import { SANDBOX_MAX_AMOUNT_XAF } from "../../src/sandbox/index.js";

const SRC = new URL("../../src/", import.meta.url).pathname;

/** Every .ts file under `folder` of src/, as a path from src/. */
function filesOf(folder: string): string[] {
  return readdirSync(join(SRC, folder), { recursive: true, encoding: "utf8" })
    .filter((entry) => entry.endsWith(".ts"))
    .map((entry) => (folder === "." ? entry : `${folder}/${entry}`));
}

interface ImportSeen {
  file: string;
  from: string;
  /** `import type { … }` (erased from the build). */
  typeOnly: boolean;
}

function importsOf(folder: string): ImportSeen[] {
  const found: ImportSeen[] = [];
  for (const entry of readdirSync(join(SRC, folder), { recursive: true, encoding: "utf8" })) {
    if (!entry.endsWith(".ts")) continue;
    const text = readFileSync(join(SRC, folder, entry), "utf8");
    const file = folder === "." ? entry : `${folder}/${entry}`;
    for (const match of text.matchAll(/^(?:import|export)(\s+type\b)?[^;]*?\sfrom\s*"([^"]+)"/gm)) {
      found.push({ file, from: match[2] ?? "", typeOnly: match[1] !== undefined });
    }
    for (const match of text.matchAll(/^import\s*"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/gm)) {
      found.push({ file, from: match[1] ?? match[2] ?? "", typeOnly: false });
    }
  }
  return found;
}

describe("layers", () => {
  it("finds imports at all (the check below can fail)", () => {
    expect(importsOf("sandbox").some((entry) => entry.from === "./spec.js")).toBe(true);
  });

  it("keeps the sandbox apart from the client, the payouts, the stores and the bot", () => {
    const crossing = importsOf("sandbox").filter((entry) =>
      /^(\.\.\/)+(payments|payouts|store|bot)\//.test(entry.from),
    );
    expect(crossing).toEqual([]);
  });

  it("keeps the model free of everything of ours but itself", () => {
    const outside = importsOf("model").filter(
      (entry) => entry.from.startsWith(".") && !entry.from.startsWith("./"),
    );
    expect(outside).toEqual([]);
    expect(importsOf("model").length).toBeGreaterThan(0);
  });

  it("keeps the stores below the payouts, the bot and the HTTP server", () => {
    const crossing = importsOf("store").filter((entry) =>
      /^(\.\.\/)+(payouts|bot|http|config)(\/|\.js)/.test(entry.from),
    );
    expect(crossing).toEqual([]);
  });

  it("keeps store/redis and store/memory apart: neither imports the other", () => {
    const crossing = [
      ...importsOf("store/redis").filter((entry) => /^(\.\.\/)+memory(\/|\.js)/.test(entry.from)),
      ...importsOf("store/memory").filter((entry) => /^(\.\.\/)+redis(\/|\.js)/.test(entry.from)),
    ];
    expect(crossing).toEqual([]);
    expect(importsOf("store/redis").some((entry) => entry.from === "../types.js")).toBe(true);
  });

  /** The store's root: what every store is held to, and the two factories that build them. */
  const STORE_ROOT: Readonly<Record<string, string>> = {
    "types.ts": "the store interfaces (and the Stores set)",
    "payout-store.ts": "the PayoutStore interface and its results",
    "batch-store.ts": "the BatchStore interface and its results",
    "errors.ts": "every error a store throws",
    "keys.ts": "the Redis key layout, shared by name with tests and tools",
    "schemas.ts": "checks of what goes in and comes out",
    "audit-codec.ts": "how an audit entry is written and read",
    "payout-codec.ts": "how a payout record is written and read",
    "oldest-in-state.ts": "the rule both stores pick what waits in a state by (the Overview)",
    "recipient-store.ts": "the saved recipients' contract",
    "schedule-store.ts": "the schedules' contract",
    "pin-store.ts": "the step-up PINs' contract",
    "reports-codec.ts": "how the digest and availability records are written and read",
    "redis.ts": "composition: every Redis store on one connection",
    "memory.ts": "composition: every store in memory",
  };

  it("holds only contracts and composition at the store's root; the rest in redis/ or memory/", () => {
    const root = readdirSync(join(SRC, "store"), { withFileTypes: true });
    expect(
      root
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name)
        .sort(),
    ).toEqual(Object.keys(STORE_ROOT).sort());
    expect(
      root
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort(),
    ).toEqual(["memory", "redis"]);
    // The contracts import no implementation: only the composition files reach into a folder.
    const reaching = importsOf("store").filter(
      (entry) =>
        !/^store\/(redis|memory)\//.test(entry.file) &&
        !["store/redis.ts", "store/memory.ts"].includes(entry.file) &&
        /^\.\/(redis|memory)\//.test(entry.from),
    );
    expect(reaching).toEqual([]);
  });

  it("writes no Lua inside TypeScript: every script is a .lua file under store/redis/lua/", () => {
    const withLua = filesOf(".").filter((file) =>
      /redis\.p?call\(|cjson\.|\b(?:KEYS|ARGV)\[|local function /.test(
        readFileSync(join(SRC, file), "utf8"),
      ),
    );
    expect(withLua).toEqual([]);
    const lua = readdirSync(join(SRC, "store/redis/lua")).filter((file) => file.endsWith(".lua"));
    expect(lua.length).toBeGreaterThan(0);
  });

  it("sends payments from one module only: payouts/submission.ts", () => {
    const senders = filesOf(".").filter((file) => {
      if (/^(sandbox|dev|payments)\//.test(file)) return false;
      return /\.(disburse|collect)\(/.test(readFileSync(join(SRC, file), "utf8"));
    });
    expect(senders).toEqual(["payouts/submission.ts"]);
  });

  it("keeps the bot's features off the stores: features call steps, steps call stores", () => {
    // Type-only imports of the store contracts (`store/types.js`) are all that is allowed, for
    // the deps a feature is handed; no feature imports a store's code, its errors or a class.
    const crossing = importsOf("bot/features").filter((entry) => {
      if (!/^(\.\.\/)+store\//.test(entry.from)) return false;
      return !(entry.typeOnly && /^(\.\.\/)+store\/types\.js$/.test(entry.from));
    });
    expect(crossing).toEqual([]);
  });

  it("lets the bot's features read the stores but never write: every write is a step's", () => {
    const READS = new Set(["get", "getMany", "list", "listInState", "page", "range", "recent"]);
    const FEATURE_READS = new Set([
      "getDialog",
      "getLocale",
      "openPrompt",
      "payoutOf",
      "findByPaymentId",
    ]);
    const calls = filesOf("bot").flatMap((file) =>
      [...readFileSync(join(SRC, file), "utf8").matchAll(/\bstores\.(\w+)\.(\w+)\(/g)].map(
        (match) => ({ file, call: `${match[1]}.${match[2]}`, method: match[2] ?? "" }),
      ),
    );
    expect(calls.length).toBeGreaterThan(5);
    const writes = calls.filter(
      (entry) =>
        entry.file.startsWith("bot/features/") &&
        !READS.has(entry.method) &&
        !FEATURE_READS.has(entry.method),
    );
    expect(writes).toEqual([]);
  });

  it("keeps only contracts and composition at the bot's root; the rest has a room", () => {
    const atRoot = readdirSync(join(SRC, "bot")).filter((entry) => entry.endsWith(".ts"));
    expect(atRoot.sort()).toEqual(["bot.ts", "context.ts"]);
    for (const room of ["features", "views", "messenger", "telegram"]) {
      expect(filesOf(`bot/${room}`).length).toBeGreaterThan(0);
    }
  });

  it("keeps the telegram transport below what uses it, and the views free of I/O", () => {
    const upward = importsOf("bot/telegram").filter((entry) =>
      /^\.\.\/(features|messenger)\//.test(entry.from),
    );
    expect(upward).toEqual([]);
    const viewsReaching = importsOf("bot/views").filter((entry) =>
      /^\.\.\/(features|messenger|telegram\/(transport|poller|reply))/.test(entry.from),
    );
    expect(viewsReaching).toEqual([]);
  });

  it("gives the batch and the loops their rooms, with the steps at the payouts' root", () => {
    const batch = filesOf("payouts/batch");
    const loops = filesOf("payouts/loops");
    expect(batch).toContain("payouts/batch/worker.ts");
    expect(loops).toContain("payouts/loops/runner.ts");
    const atRoot = readdirSync(join(SRC, "payouts")).filter((entry) => entry.endsWith(".ts"));
    for (const step of ["prepare", "submission", "settlement", "resolution", "approval", "types"]) {
      expect(atRoot).toContain(`${step}.ts`);
    }
    expect(atRoot.filter((entry) => /^(batch|runner|tracker|notifier|digest)/.test(entry))).toEqual(
      [],
    );
    // A loop may run a step; a step never reaches into the loops (the batch worker and the
    // scheduler are loops that live with their idea).
    const stepsOnLoops = importsOf("payouts").filter(
      (entry) =>
        !entry.file.startsWith("payouts/loops/") &&
        !entry.file.startsWith("payouts/batch/worker") &&
        !entry.file.startsWith("payouts/schedule/scheduler") &&
        /(^\.\/|^\.\.\/)loops\//.test(entry.from),
    );
    expect(stepsOnLoops).toEqual([]);
  });

  it("has no import circle anywhere in src/", () => {
    const edges = new Map<string, string[]>();
    for (const entry of importsOf(".")) {
      if (!entry.from.startsWith(".")) continue;
      const target = normalize(join(dirname(entry.file), entry.from)).replace(/\.js$/, ".ts");
      const list = edges.get(entry.file) ?? [];
      list.push(target);
      edges.set(entry.file, list);
    }
    expect(edges.size).toBeGreaterThan(100);
    const circles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const path: string[] = [];
    const visit = (file: string): void => {
      state.set(file, "open");
      path.push(file);
      for (const next of edges.get(file) ?? []) {
        const seen = state.get(next);
        if (seen === "open") circles.push([...path.slice(path.indexOf(next)), next].join(" -> "));
        else if (seen === undefined) visit(next);
      }
      path.pop();
      state.set(file, "done");
    };
    for (const file of [...edges.keys()].sort()) if (!state.has(file)) visit(file);
    expect(circles).toEqual([]);
  });

  /**
   * Over 300 lines is a reason to look, not a limit: a file holds one idea, and a class is
   * never split across files to fit a number. A file that grows past it is named here, with
   * the idea it holds, once someone has looked; anything past 500 is more than one idea.
   */
  const LOOKED_AT: Readonly<Record<string, string>> = {
    "app.ts": "the composition root: builds, starts and stops every part in order",
    "bot/features/schedule.ts":
      "the schedules feature, one Composer: /schedule, /schedules, and the buttons of its prompts, cards, list and runs",
    "store/redis/durability.ts":
      "durable writes: the plan read from the server (every primary of a cluster), and RedisDurability, one class, that runs a script with its wait on the write's node",
    "store/redis/payouts.ts":
      "RedisPayoutStore, one class: creation, moves, reads, and their replies (a move's arguments are payout-move-args.ts)",
    "store/redis/payout-move-args.ts":
      "a payout move's keys and arguments as payout-transition.lua takes them, and its reply read strictly: one script's interface",
    "http/webapp/dashboard-routes.ts":
      "the Mini App's dashboard API: each route's check of the query and its answer, with the steps it calls",
    "payouts/dashboard/history.ts":
      "the Mini App's History search: which index answers each kind of query, its filters and pages",
    "store/payout-store.ts":
      "the PayoutStore interface with the option and answer types of its methods, documented",
    "store/memory/payouts.ts":
      "MemoryPayoutStore, one class, with the pure checks and listings that mirror the Redis scripts and indexes",
    "payouts/approval.ts":
      "four-eyes approval, one class: request, approve (each a signature of its rule), reject, withdraw, a reason, expiry, the cards shown",
    "model/notice.ts":
      "every notice the outbox carries: its kinds, its key, and reading a key back",
    "bot/messenger/batches.ts":
      "a batch's messages on Telegram, one class: preview, progress, summary, approval cards and their signatures",
    "payouts/batch/worker.ts":
      "the batch worker, one class: rounds of name look-ups, row payments and approval expiry",
    "payouts/schedule/schedules.ts":
      "the schedule steps people take (prompt, Confirm, Cancel, Approve/Reject, Pause/Resume/Delete), one class",
    "payouts/schedule/scheduler.ts":
      "the scheduler loop, one class: due runs (single or batch), reminders, approval expiry, interrupted runs",
    "payouts/schedule/runs.ts":
      "what happens to one scheduled run (created, claimed, recorded, sent; held, skipped), one class",
    "bot/views/schedule.ts":
      "every view of a schedule: prompt, state, list item, held run, reminder, missed run, approval card",
    "bot/features/batch.ts":
      "batch files in the chat: the upload (or a scheduled batch's), its preview's buttons, /batches and /batch, one Composer",
    "bot/features/pay.ts":
      "/pay and /collect: the command, the dialog, Confirm (or its PIN button) and Cancel, one Composer",
    "payouts/prepare.ts":
      "a payout's first step, one class: the request checked and drafted, its prompt published then stored, retired",
    "payouts/submission.ts":
      "the one sender of POST /disburse and /collect, one class: the claim, the last check, the request, its answer told then recorded",
    "payouts/types.ts":
      "the payout steps' inputs and results, types only: prepare, claim, confirm, submit, approve, cancel",
    "payouts/loops/notifier.ts":
      "the outbox loop: every notice kind read back into what the messenger delivers, one class",
    "dev/telegram-emulator/index.ts":
      "the emulator's one handle for tests and tools: chats, users, presses, files, photos, flood control",
    "payouts/batch/approval.ts":
      "a batch's approval, one class: Approve (each a signature of its rule, the last one's move with its signers' standing), Reject, expiry",
    "payouts/batch/batch.ts":
      "the batch steps people take (upload, Confirm, Include, Cancel, Stop, a lost standing's stop), one class",
    "config/index.ts":
      "the env schema and the Config it resolves to, with every problem listed at once",
    "payouts/recipients.ts":
      "saved recipients: resolveRecipientArg and the address book's steps (save, forget, list, paid), one class",
    "payments/client.ts":
      "the Payment API client: each endpoint, and the attempt loop with its slots and retries",
    "app-merchants.ts":
      "the many-merchants front: a runtime per merchant, each update and callback routed to its merchant, /merchant, the SIGHUP reload",
    "metrics/prometheus.ts":
      "the Prometheus recorder: every series declared once, recorded at the seams, the gauges read at a scrape, one class",
    "app-step-up.ts":
      "the step-up's wiring: the item a PIN confirms, the PIN, the Confirm or Approve step, and the chat prompt shown after it",
    "dev/demo-chat.ts":
      "the terminal chat of the demo: input, the bot's messages drawn, the pace of piped input, one class",
    "store/types.ts": "the store interfaces and the Stores set, each documented",
    "bot/telegram/transport.ts":
      "the Bot API transport: a bounded, paced undici client that answers as Telegraf does, and its errors",
    "payouts/loops/events.ts":
      "the signed events' loop, one class: queue, tries, backoff, a 410's stop",
  };

  it("names every file in src/ over 300 lines with the idea it holds, and has none over 500", () => {
    const lengths = filesOf(".").map((file) => ({
      file,
      lines: readFileSync(join(SRC, file), "utf8").split("\n").length - 1,
    }));
    const unexplained = lengths
      .filter((entry) => entry.lines > 300 && LOOKED_AT[entry.file] === undefined)
      .map((entry) => entry.file);
    expect(unexplained).toEqual([]);
    expect(lengths.filter((entry) => entry.lines > 500)).toEqual([]);
  });

  it("never lets the bot ask for more than the sandbox takes", () => {
    expect(MAX_AMOUNT_XAF).toBeLessThanOrEqual(SANDBOX_MAX_AMOUNT_XAF);
  });
});
