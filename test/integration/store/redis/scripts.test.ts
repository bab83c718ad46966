/**
 * Every Lua script of the Redis stores, as the loader reads it from its `.lua` file, runs
 * on a real Redis with sane arguments and answers what its header says; and a script
 * Redis has forgotten (SCRIPT FLUSH, a restart, a failover) is sent again by its source.
 * The stores' own tests run these scripts through the stores; this holds each file to its
 * header on its own, so that a file that does not load or parse fails here by name.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { maskPhone } from "../../../../src/logger.js";
import { MAX_SEARCH_WORDS, MAX_WORD_LENGTH, searchWordsOf } from "../../../../src/model/search.js";
import { merchantKeyPrefix } from "../../../../src/store/keys.js";
import {
  createRedisConnection,
  primaries,
  type RedisClient,
  waitForReady,
} from "../../../../src/store/redis/connection.js";
import {
  isNoScript,
  LUA_DIR,
  luaScript,
  runScript,
  SCRIPT_NAMES,
  SCRIPTS,
  type ScriptName,
} from "../../../../src/store/redis/scripts.js";
import { RedisCluster } from "../../../support/cluster.js";
import { dropPrefix, testPrefix, testRedis } from "../../../support/redis.js";

type Run = (name: ScriptName, keys: string[], args: Array<string | number>) => Promise<unknown>;

/**
 * One call (or a few) per script: what it is given, and what it must answer and write.
 * A Record over ScriptName, so a script added without a case here does not typecheck.
 */
const CASES: Record<ScriptName, (redis: RedisClient, p: string, run: Run) => Promise<void>> = {
  "availability-observe": async (redis, p, run) => {
    const keys = [`${p}availability`, `${p}outbox`, `${p}audit`];
    const args = (up: string) => [
      JSON.stringify({ field: "mtn:disburse", up, nowMs: "1000" }),
      '"changed"',
      "availability:changed",
      '"first"',
      "availability:first",
      '{"action":"changed"}',
      '{"action":"first"}',
    ];
    expect(await run("availability-observe", keys, args("1"))).toEqual(["first", '"first"']);
    expect(await run("availability-observe", keys, args("1"))).toEqual(["same", '"first"']);
    expect(await run("availability-observe", keys, args("0"))).toEqual([
      "changed",
      '"changed"',
      '"first"',
    ]);
    expect(await redis.zrange(`${p}outbox`, 0, -1)).toEqual(["availability:changed"]);
    expect(await redis.xlen(`${p}audit`)).toBe(1);
  },

  "batch-move": async (redis, p, run) => {
    await redis.set(`${p}batch`, JSON.stringify({ id: "b1", state: "ready", version: 1 }));
    const keys = ["batch", "rows", "active", "outbox", "audit"].map((part) => `${p}${part}`);
    const options = {
      allowed: ["ready"],
      to: "running",
      nowMs: "1000",
      auditMinId: "0",
      retentionMs: "60000",
      finalStates: ["done"],
      workedStates: ["running"],
      version: "1",
    };
    const args = [JSON.stringify(options), '{"totalXaf":5000}', '["batch:b1"]', '{"action":"x"}'];
    const [moved, json] = (await run("batch-move", keys, args)) as [number, string];
    expect(moved).toBe(1);
    expect(JSON.parse(json)).toEqual({
      id: "b1",
      state: "running",
      version: 2,
      totalXaf: 5000,
      updatedAtMs: 1000,
    });
    expect(await redis.smembers(`${p}active`)).toEqual(["b1"]);
    expect(await redis.zrange(`${p}outbox`, 0, -1)).toEqual(["batch:b1"]);
    const [[, fields]] = (await redis.xrange(`${p}audit`, "-", "+")) as [[string, string[]]];
    expect(JSON.parse(fields[1] ?? "")).toEqual({
      action: "x",
      details: { from: "ready", to: "running" },
    });
    expect(fields.slice(2)).toEqual(["amount", "5000"]);
    // Not from a state it may leave (nor at the version asked): nothing moves.
    expect(await run("batch-move", keys, args)).toEqual([0, json]);
  },

  "batch-tally": async (redis, p, run) => {
    const row = (n: number, problem?: string) =>
      JSON.stringify({ row: n, phoneText: "", amountText: "", problem });
    // Rows 2-7: paid (fee 10), failed, pending, unknown, a problem, a payout never made.
    await redis.rpush(`${p}rows`, row(2), row(3), row(4), row(5), row(6, "no_account"), row(7));
    await redis.hset(`${p}payout:b1-2`, ...payoutFields("success"), "fee", "10");
    await redis.hset(`${p}payout:b1-3`, ...payoutFields("failed"), "fee", "10");
    await redis.hset(`${p}payout:b1-4`, ...payoutFields("pending"));
    await redis.hset(`${p}payout:b1-5`, ...payoutFields("unknown"));
    await redis.hset(`${p}payout:b1-6`, ...payoutFields("success"));
    const standings = {
      '"success"': "paid",
      '"failed"': "failed",
      '"pending"': "pending",
      '"unknown"': "unknown",
    };
    const page = (from: number, count: number) =>
      run(
        "batch-tally",
        [`${p}rows`],
        [
          JSON.stringify({
            from: String(from),
            count: String(count),
            payoutPrefix: `${p}payout:b1-`,
            standings,
          }),
        ],
      );
    expect(await page(0, 10)).toEqual([6, 1, 1, 1, 1, 2, 5000, 10]);
    // A page of the rows: the last two (a problem, no payout) are both skipped.
    expect(await page(4, 2)).toEqual([2, 0, 0, 0, 0, 2, 0, 0]);
    expect(await page(6, 2)).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  },

  "digest-once": async (redis, p, run) => {
    const keys = [`${p}mark`, `${p}outbox`];
    expect(await run("digest-once", keys, [60_000, 1000, "digest:2026-11-25"])).toBe(1);
    expect(await run("digest-once", keys, [60_000, 2000, "digest:2026-11-25"])).toBe(0);
    expect(await redis.zscore(`${p}outbox`, "digest:2026-11-25")).toBe("1000");
  },

  "callback-admit": async (redis, p, run) => {
    await redis.hset(`${p}payout:id1`, ...payoutFields("pending"), "paymentId", '"pay-1"');
    await redis.set(`${p}payment:pay-1`, "id1");
    const admit = (paymentId: string, owner: string, capLimit: number | "" = "") =>
      run(
        "callback-admit",
        [`${p}payment:${paymentId}`, `${p}cap`, `${p}limit`],
        [
          JSON.stringify(paymentId),
          `${p}payout:`,
          `${p}spacing:`,
          `${p}lease:`,
          5000,
          owner,
          30_000,
          capLimit,
          60_000,
          `${owner}:reread`,
          1,
          60_000,
        ],
      ) as Promise<[string, string, string[], number?] | []>;
    const first = await admit("pay-1", "a");
    expect(first.slice(0, 2)).toEqual(["admitted", "id1"]);
    // The re-read's request slot, taken with the admission.
    expect(first[3]).toBe(1);
    expect(await redis.zrange(`${p}limit`, 0, -1)).toEqual(["a:reread"]);
    expect(await redis.get(`${p}lease:id1`)).toBe("a");
    expect(await redis.pttl(`${p}spacing:id1`)).toBeGreaterThan(0);
    // Within the spacing: counted, nothing else.
    expect((await admit("pay-1", "b"))[0]).toBe("spaced");
    // Spacing over, lease still held by another owner.
    await redis.del(`${p}spacing:id1`);
    expect((await admit("pay-1", "b"))[0]).toBe("leased");
    expect(await redis.get(`${p}lease:id1`)).toBe("a");
    // Over the cap (a full one): refused, no lease taken, no request slot.
    await redis.del(`${p}spacing:id1`, `${p}lease:id1`);
    await redis.zadd(`${p}cap`, Date.now() - 1000, "earlier");
    expect((await admit("pay-1", "b", 1))[0]).toBe("over_cap");
    expect(await redis.get(`${p}lease:id1`)).toBeNull();
    expect(await redis.zcard(`${p}limit`)).toBe(1);
    // A cap with room: admitted, the request's limit full (0).
    await redis.del(`${p}spacing:id1`);
    const full = await admit("pay-1", "b", 2);
    expect([full[0], full[3]]).toEqual(["admitted", 0]);
    expect(await redis.zrange(`${p}cap`, 0, -1)).toEqual(["earlier", "b:reread"]);
    await redis.hset(`${p}payout:id1`, "state", '"success"');
    expect((await admit("pay-1", "c"))[0]).toBe("not_pending");
    expect(await admit("pay-none", "c")).toEqual([]);
  },

  "due-claim": async (redis, p, run) => {
    await redis.zadd(`${p}queue`, 500, "a", 1500, "b");
    expect(await run("due-claim", [`${p}queue`], [1000, 10, 2000])).toEqual(["a"]);
    expect(await redis.zscore(`${p}queue`, "a")).toBe("2000");
  },

  "event-endpoint-disable": async (redis, p, run) => {
    const keys = [`${p}state`, `${p}outbox`, `${p}failures`];
    expect(await run("event-endpoint-disable", keys, [1000, "events:gone", '{"f":1}', 10])).toBe(1);
    expect(await run("event-endpoint-disable", keys, [2000, "events:gone", '{"f":2}', 10])).toBe(0);
    expect(await redis.hget(`${p}state`, "state")).toBe("disabled");
    expect(await redis.lrange(`${p}failures`, 0, -1)).toEqual(['{"f":1}']);
  },

  "event-enqueue": async (redis, p, run) => {
    const keys = [`${p}cursor`, `${p}due`, `${p}waiting`];
    const event = ["e1", "payout-1", 900, '{"type":"payout.updated"}'];
    expect(await run("event-enqueue", keys, ["", "c1", 1000, 60_000, p, ...event])).toBe(1);
    // The cursor moved: another replica queued these already.
    expect(await run("event-enqueue", keys, ["", "c2", 1000, 60_000, p, ...event])).toBe(-1);
    expect(await redis.get(`${p}cursor`)).toBe("c1");
    expect(await redis.zrange(`${p}due`, 0, -1)).toEqual(["e1"]);
    expect(await redis.hget(`${p}event:e1`, "chain")).toBe("payout-1");
  },

  "event-retry": async (redis, p, run) => {
    await redis.hset(`${p}event:e1`, "attempts", "0");
    await redis.zadd(`${p}due`, 1000, "e1");
    const keys = [`${p}due`, `${p}failures`];
    expect(await run("event-retry", keys, ["e1", 5000, p, '{"status":500}', 10])).toBe(1);
    expect(await run("event-retry", keys, ["gone", 5000, p, '{"status":500}', 10])).toBe(0);
    expect(await redis.hget(`${p}event:e1`, "attempts")).toBe("1");
    expect(await redis.zscore(`${p}due`, "e1")).toBe("5000");
  },

  "event-settle": async (redis, p, run) => {
    await redis.hset(`${p}event:e1`, "chain", "payout-1");
    await redis.rpush(`${p}chain:payout-1`, "e1", "e2");
    await redis.zadd(`${p}due`, 1000, "e1");
    const keys = ["due", "waiting", "delivered", "counts", "failures"].map((part) => `${p}${part}`);
    const options = {
      id: "e1",
      nowMs: "2000",
      prefix: p,
      outcome: "delivered",
      dayMs: "86400000",
      failuresKept: "10",
    };
    expect(await run("event-settle", keys, [JSON.stringify(options), ""])).toBe(1);
    expect(await redis.exists(`${p}event:e1`)).toBe(0);
    expect(await redis.zrange(`${p}due`, 0, -1, "WITHSCORES")).toEqual(["e2", "2000"]);
    expect(await redis.zrange(`${p}delivered`, 0, -1)).toEqual(["e1"]);
  },

  "lease-acquire": async (redis, p, run) => {
    expect(await run("lease-acquire", [`${p}lease`], ["a", 60_000])).toBe(1);
    expect(await run("lease-acquire", [`${p}lease`], ["b", 60_000])).toBe(0);
    expect(await redis.get(`${p}lease`)).toBe("a");
  },

  "lease-release": async (redis, p, run) => {
    await redis.set(`${p}lease`, "a", "PX", 60_000);
    expect(await run("lease-release", [`${p}lease`], ["b"])).toBe(0);
    expect(await run("lease-release", [`${p}lease`], ["a"])).toBe(1);
    expect(await redis.exists(`${p}lease`)).toBe(0);
  },

  "lease-renew": async (redis, p, run) => {
    await redis.set(`${p}lease`, "a", "PX", 1000);
    expect(await run("lease-renew", [`${p}lease`], ["b", 60_000])).toBe(0);
    expect(await run("lease-renew", [`${p}lease`], ["a", 60_000])).toBe(1);
    expect(await redis.pttl(`${p}lease`)).toBeGreaterThan(1000);
  },

  "outbox-claim": async (redis, p, run) => {
    await redis.hset(`${p}payout:id1`, ...payoutFields("success"));
    await redis.zadd(`${p}outbox`, 1000, "settled:id1", 2000, "digest:2026-01-01", 9000, "later");
    const claim = () =>
      run("outbox-claim", [`${p}outbox`, `${p}phones`], [5000, 65_000, "settled:", `${p}payout:`]);
    const [key, fields, saved] = (await claim()) as [string, string[], number];
    expect(key).toBe("settled:id1");
    expect(fields).toContain('"success"');
    expect(saved).toBe(0);
    // Claimed: hidden until the lease ends.
    expect(await redis.zscore(`${p}outbox`, "settled:id1")).toBe("65000");
    expect(await claim()).toEqual(["digest:2026-01-01"]);
    expect(await claim()).toEqual([]);
    await redis.zadd(`${p}outbox`, 1000, "settled:gone");
    expect(await claim()).toEqual(["settled:gone", [], 0]);
    // A saved number (the record keeps its phone JSON-encoded): 1.
    const phone = JSON.parse((await redis.hget(`${p}payout:id1`, "phone")) ?? '""') as string;
    await redis.hset(`${p}phones`, phone, "1");
    await redis.zadd(`${p}outbox`, 1000, "settled:id1");
    expect(((await claim()) as unknown[])[2]).toBe(1);
  },

  "payout-by-payment": async (redis, p, run) => {
    await redis.hset(`${p}payout:id1`, ...payoutFields("pending"));
    await redis.set(`${p}payment:pay-1`, "id1");
    await redis.set(`${p}payment:pay-gone`, "gone");
    const found = (await run("payout-by-payment", [`${p}payment:pay-1`], [`${p}payout:`])) as [
      string,
      string[],
    ];
    expect(found[0]).toBe("id1");
    expect(found[1]).toContain('"pending"');
    // No index, or an index whose record is gone: nothing.
    expect(await run("payout-by-payment", [`${p}payment:none`], [`${p}payout:`])).toEqual([]);
    expect(await run("payout-by-payment", [`${p}payment:pay-gone`], [`${p}payout:`])).toEqual([]);
  },

  "payout-create": async (redis, p, run) => {
    const keys = [
      ...["payout:id1", "user:1", "all", "state:x", "payment:", "audit", "phone", "prompt"],
      ...["status:other:user:1", "status:other", "words", "words:seen", "word:aicha", "word:n"],
    ];
    const options = {
      id: "id1",
      createdAtMs: "1000",
      cutoffMs: "0",
      retentionMs: "60000",
      expires: "1",
      tracked: "0",
      hasPaymentId: "0",
      lifetimeMs: "30000",
      auditMinId: "0",
      payoutPrefix: `${p}payout:`,
      words: ["aicha", "n"],
    };
    const fields = [...payoutFields("awaiting_confirmation")];
    const args = [JSON.stringify(options), '{"action":"prompt"}', ...fields];
    const prefixed = keys.map((key) => `${p}${key}`);
    expect(await run("payout-create", prefixed, args)).toEqual([1]);
    expect(await run("payout-create", prefixed, args)).toEqual([0]);
    expect(await redis.hget(`${p}payout:id1`, "state")).toBe('"awaiting_confirmation"');
    expect(await redis.zscore(`${p}phone`, "id1")).toBe("1000");
    expect(await redis.get(`${p}prompt`)).toBe("id1");
    expect(await redis.zscore(`${p}status:other`, "id1")).toBe("1000");
    expect(await redis.zscore(`${p}status:other:user:1`, "id1")).toBe("1000");
    expect(await redis.zrange(`${p}word:aicha`, 0, -1)).toEqual(["id1"]);
    expect(await redis.zrange(`${p}words`, 0, -1)).toEqual(["aicha", "n"]);
    expect(await redis.zscore(`${p}words:seen`, "n")).toBe("1000");
    const [[, entry]] = (await redis.xrange(`${p}audit`, "-", "+")) as [[string, string[]]];
    // The number is masked in the script as the logger masks it.
    expect(entry).toEqual([
      "e",
      '{"action":"prompt"}',
      "to",
      '"awaiting_confirmation"',
      "amount",
      "5000",
      "phone",
      maskPhone("237670000001"),
    ]);
  },

  "payout-mark-sending": async (redis, p, run) => {
    await redis.hset(`${p}payout:id1`, ...payoutFields("submitting"), "claimId", '"c1"');
    const keys = [`${p}payout:id1`, `${p}audit`];
    const [status, ms] = (await run("payout-mark-sending", keys, ['"c1"', "{}", "0"])) as string[];
    expect(status).toBe("sending");
    expect(await redis.hget(`${p}payout:id1`, "sentAtMs")).toBe(ms);
    const moved = (await run("payout-mark-sending", keys, ['"c2"', "{}", "0"])) as unknown[];
    expect(moved[0]).toBe("moved");
    expect(
      await run("payout-mark-sending", [`${p}payout:gone`, `${p}audit`], ['"c1"', "{}", "0"]),
    ).toEqual(["not_found"]);
  },

  "payout-transition": async (redis, p, run) => {
    await redis.hset(
      `${p}payout:id1`,
      ...payoutFields("awaiting_confirmation"),
      "createdAtMs",
      500,
    );
    await redis.zadd(`${p}status:other`, 500, "id1");
    await redis.zadd(`${p}status:other:user:1`, 500, "id1");
    await redis.hset(`${p}staff`, "1", "payer");
    const keys = ["payout:id1", "outbox", "audit", "tracking", "state:submitting"].map(
      (key) => `${p}${key}`,
    );
    const options = {
      id: "id1",
      target: '"submitting"',
      claim: '"c1"',
      nowMs: "2000",
      expires: "0",
      retentionMs: "60000",
      paymentPrefix: `${p}payment:`,
      auditMinId: "0",
      expectedInitiator: "1",
      notExpiredAt: "",
      trackAt: "",
      spendPrefix: `${p}spent:`,
      reserveDay: "2026-11-25",
      payerCap: "10000",
      merchantCap: "",
      givesBack: "0",
      spendKeptMs: "60000",
      amountBelow: "",
      reserveKind: "",
      batchPrefix: `${p}batch:`,
      staffKey: `${p}staff`,
      grantedKey: `${p}staff:granted`,
      initiatorRoles: ",payer,admin,",
      deciderId: "",
      deciderRoles: "",
      sources: ['"awaiting_confirmation"'],
      noticeCount: "1",
      settledPrefix: "settled:",
      trackedStates: ['"submitting"'],
      groups: { '"awaiting_confirmation"': "other", '"submitting"': "pending" },
      statusKeys: { other: `${p}status:other`, pending: `${p}status:pending` },
      userStatusPrefixes: { other: `${p}status:other:user:`, pending: `${p}status:pending:user:` },
    };
    const args = [
      JSON.stringify(options),
      "",
      '{"action":"confirm"}',
      '{"action":"submit"}',
      "attention:x:id1",
      "state",
      '"submitting"',
      "claimId",
      '"c1"',
    ];
    const [status] = (await run("payout-transition", keys, args)) as [string, string[]];
    expect(status).toBe("applied");
    expect(await redis.smembers(`${p}state:submitting`)).toEqual(["id1"]);
    // Its status group moves with it: out of "other", into "pending" (scored by createdAtMs).
    expect(await redis.zrange(`${p}status:pending`, 0, -1, "WITHSCORES")).toEqual(["id1", "500"]);
    expect(await redis.zrange(`${p}status:pending:user:1`, 0, -1)).toEqual(["id1"]);
    expect(await redis.zcard(`${p}status:other`)).toBe(0);
    expect(await redis.zcard(`${p}status:other:user:1`)).toBe(0);
    expect(await redis.hget(`${p}spent:2026-11-25`, "user:1")).toBe("5000");
    expect(await redis.hget(`${p}payout:id1`, "limitDay")).toBe('"2026-11-25"');
    expect(await redis.hget(`${p}payout:id1`, "sentAtMs")).toMatch(/^\d+$/);
    expect(await redis.zrange(`${p}outbox`, 0, -1)).toEqual(["attention:x:id1"]);
    expect(await redis.xlen(`${p}audit`)).toBe(2);
    // The same claim again is a resend: nothing more is written.
    const [again] = (await run("payout-transition", keys, args)) as [string];
    expect(again).toBe("unchanged");
    expect(await redis.hget(`${p}spent:2026-11-25`, "user:1")).toBe("5000");

    // With a slot asked (the rate-limit log after the state sets): a refused claim takes
    // none, a claim made takes one, and a full limit still lets the move be made.
    const slotKeys = [...keys, `${p}limit`];
    const withSlot = (payout: string, member: string, claim: string) => {
      const slotOptions = { ...options, id: payout, claim: `"${claim}"`, reserveDay: "" };
      const slot = { slotLimit: "1", slotWindowMs: "60000", slotMember: member };
      const fields = ["state", '"submitting"', "claimId", `"${claim}"`];
      return run(
        "payout-transition",
        [`${p}payout:${payout}`, ...slotKeys.slice(1)],
        [JSON.stringify({ ...slotOptions, ...slot }), "", "{}", "", "attention:x:y", ...fields],
      ) as Promise<unknown[]>;
    };
    await redis.hset(`${p}payout:id2`, ...payoutFields("awaiting_confirmation"));
    await redis.hset(`${p}payout:id3`, ...payoutFields("awaiting_confirmation"));
    const refused = await withSlot("id1", "m0", "c9");
    expect(refused[0]).toBe("wrong_state");
    expect(await redis.zcard(`${p}limit`)).toBe(0);
    const granted = await withSlot("id2", "m1", "c2");
    expect([granted[0], granted[2]]).toEqual(["applied", 1]);
    expect(await redis.zrange(`${p}limit`, 0, -1)).toEqual(["m1"]);
    const full = await withSlot("id3", "m2", "c3");
    expect([full[0], full[2]]).toEqual(["applied", 0]);
    expect(await redis.hget(`${p}payout:id3`, "state")).toBe('"submitting"');
    expect(await redis.zrange(`${p}limit`, 0, -1)).toEqual(["m1"]);

    // A move into a counted final state counts the payout on its day (totals.lua), once.
    await redis.hset(`${p}payout:id4`, ...payoutFields("pending"), ...KIND_FIELDS, "fee", "25");
    const settle = () =>
      run(
        "payout-transition",
        [`${p}payout:id4`, ...keys.slice(1)],
        [
          JSON.stringify({
            ...options,
            id: "id4",
            target: '"success"',
            claim: "",
            reserveDay: "",
            expectedInitiator: "",
            initiatorRoles: "",
            sources: ['"pending"'],
            noticeCount: "0",
            totalsDay: "2026-11-25",
            totalsPrefix: `${p}totals:`,
            totalsKeptMs: "60000",
          }),
          "",
          "{}",
          "",
          "state",
          '"success"',
        ],
      ) as Promise<unknown[]>;
    expect((await settle())[0]).toBe("applied");
    expect((await settle())[0]).toBe("wrong_state");
    const paid = { "mtn:disbursement:paid_xaf": "5000", "mtn:disbursement:paid_count": "1" };
    const counted = { ...paid, "mtn:disbursement:fees_xaf": "25" };
    expect(await redis.hgetall(`${p}totals:2026-11-25`)).toEqual(counted);
    expect(await redis.hgetall(`${p}totals:2026-11-25:user:1`)).toEqual(counted);
    expect(await redis.hget(`${p}payout:id4`, "totalsDay")).toBe('"2026-11-25"');
    expect(await redis.pttl(`${p}totals:2026-11-25`)).toBeGreaterThan(0);
  },

  "payout-update": async (redis, p, run) => {
    await redis.hset(`${p}payout:id1`, ...payoutFields("pending"));
    await redis.pexpire(`${p}payout:id1`, 60_000);
    const keys = [`${p}payout:id1`, `${p}payment:pay-1`];
    const reply = (await run("payout-update", keys, [
      "id1",
      "1",
      "paymentId",
      '"pay-1"',
    ])) as string[];
    expect(reply).toContain('"pay-1"');
    expect(await redis.get(`${p}payment:pay-1`)).toBe("id1");
    expect(await redis.pttl(`${p}payment:pay-1`)).toBeGreaterThan(0);
    expect(
      await run("payout-update", [`${p}payout:gone`, `${p}payment:x`], ["gone", "0", "a", "1"]),
    ).toBeNull();
  },

  "payout-latest-repeat": async (redis, p, run) => {
    const kind = ["kind", '"disbursement"'];
    await redis.hset(`${p}payout:paid`, ...payoutFields("success"), ...kind);
    await redis.hset(`${p}payout:failed`, ...payoutFields("failed"), ...kind);
    await redis.hset(`${p}payout:other`, ...payoutFields("pending"), "amount", "6000", ...kind);
    await redis.hset(`${p}payout:b1-row`, ...payoutFields("pending"), ...kind);
    await redis.hset(`${p}payout:self`, ...payoutFields("pending"), ...kind);
    // Newest first: self, b1-row, other, failed, gone (no record), paid; old is too old.
    await redis.zadd(`${p}phone`, 500, "old", 1000, "paid", 1500, "gone", 2000, "failed");
    await redis.zadd(`${p}phone`, 3000, "other", 4000, "b1-row", 5000, "self");
    await redis.hset(`${p}payout:old`, ...payoutFields("success"), ...kind);
    const excluded = JSON.stringify(['"failed"', '"awaiting_confirmation"']);
    const ask = (lookback: number, skipId: string, skipPrefix: string) =>
      run(
        "payout-latest-repeat",
        [`${p}phone`],
        [900, lookback, `${p}payout:`, "5000", '"disbursement"', excluded, skipId, skipPrefix],
      ) as Promise<[string, string[]] | []>;
    // Failed (not counted), another amount, the one skipped by id and the prefix: paid.
    const found = await ask(10, "self", "b1-");
    expect(found[0]).toBe("paid");
    expect(found[1]).toContain('"success"');
    expect((await ask(10, "", "b1-"))[0]).toBe("self");
    // Only the newest three looked at: none of them counts.
    expect(await ask(3, "self", "b1-")).toEqual([]);
  },

  "payouts-by-phone": async (redis, p, run) => {
    await redis.hset(`${p}payout:id1`, ...payoutFields("pending"));
    await redis.zadd(`${p}phone`, 1000, "id1", 2000, "gone");
    const reply = (await run("payouts-by-phone", [`${p}phone`], [0, 0, 10, `${p}payout:`])) as [
      string,
      string[],
    ];
    expect(reply[0]).toBe("id1");
    expect(reply).toHaveLength(2);
    expect(reply[1]).toContain('"pending"');
  },

  "payouts-by-status": async (redis, p, run) => {
    await redis.hset(`${p}payout:id1`, ...payoutFields("pending"));
    await redis.hset(`${p}payout:id2`, ...payoutFields("pending"));
    await redis.zadd(`${p}status`, 500, "old", 1000, "id1", 2000, "gone", 3000, "id2");
    const args = [900, 0, 2500, 0, 10, `${p}payout:`];
    const reply = (await run("payouts-by-status", [`${p}status`], args)) as unknown[];
    // Two entries in the period (one record gone), newest first; the one before 900 trimmed.
    expect(reply[0]).toBe(2);
    expect(reply[1]).toBe("id1");
    expect(reply).toHaveLength(3);
    expect(await redis.zscore(`${p}status`, "old")).toBeNull();
  },

  "payouts-index-search": async (redis, p, run) => {
    await redis.hset(`${p}payout:id1`, ...payoutFields("pending"), "createdAtMs", "1000");
    await redis.zadd(`${p}status:other`, 1000, "id1");
    const options = {
      payouts: [
        { id: "id1", words: ["aicha"] },
        { id: "gone", words: ["x"] },
      ],
      payoutPrefix: `${p}payout:`,
      wordPrefix: `${p}word:`,
      cutoffMs: "0",
      retentionMs: "60000",
      groups: { '"pending"': "pending" },
      statusKeys: { other: `${p}status:other`, pending: `${p}status:pending` },
      userStatusPrefixes: { other: `${p}status:other:user:`, pending: `${p}status:pending:user:` },
    };
    const keys = [`${p}words`, `${p}words:seen`];
    expect(await run("payouts-index-search", keys, [JSON.stringify(options)])).toBe(1);
    // Into the group of its state now, out of the one it was listed under.
    expect(await redis.zrange(`${p}status:pending`, 0, -1)).toEqual(["id1"]);
    expect(await redis.zrange(`${p}status:pending:user:1`, 0, -1)).toEqual(["id1"]);
    expect(await redis.exists(`${p}status:other`)).toBe(0);
    expect(await redis.zrange(`${p}word:aicha`, 0, -1, "WITHSCORES")).toEqual(["id1", "1000"]);
    expect(await redis.zrange(`${p}words`, 0, -1)).toEqual(["aicha"]);
    expect(await run("payouts-index-search", keys, [JSON.stringify(options)])).toBe(1);
    expect(await redis.zcard(`${p}word:aicha`)).toBe(1);
  },

  "payouts-search-backfill": async (redis, p, run) => {
    const texts: Record<string, { recipientName: string; note: string; recipientAlias: string }> = {
      plain: {
        recipientName: "Jean-Paul MBARGA",
        note: "Loyer 2026/11, appt. B12",
        recipientAlias: "",
      },
      long: {
        recipientName: `${"x".repeat(40)} Jean jean JEAN`,
        note: Array.from({ length: 45 }, (_, i) => `w${i}`).join(" "),
        recipientAlias: "tonton",
      },
      accented: { recipientName: "Aïcha Ngono", note: "", recipientAlias: "" },
      escaped: { recipientName: "Paul\nEssomba", note: "", recipientAlias: "" },
    };
    // Created in the same millisecond (ties across pages), but for `late`.
    for (const [id, text] of Object.entries(texts)) {
      await redis.hset(`${p}payout:${id}`, ...payoutFields("pending"), "createdAtMs", "1000");
      for (const [field, value] of Object.entries(text)) {
        if (value !== "") await redis.hset(`${p}payout:${id}`, field, JSON.stringify(value));
      }
      await redis.zadd(`${p}all`, 1000, id);
    }
    await redis.zadd(`${p}all`, 900, "before", 5000, "late");
    const options = (cursor: string) => ({
      cursor,
      toMs: "2000",
      limit: "3",
      maxWords: String(MAX_SEARCH_WORDS),
      maxWordLength: String(MAX_WORD_LENGTH),
      payoutPrefix: `${p}payout:`,
      wordPrefix: `${p}word:`,
      cutoffMs: "950",
      retentionMs: "60000",
      groups: { '"pending"': "pending" },
      statusKeys: { other: `${p}status:other`, pending: `${p}status:pending` },
      userStatusPrefixes: { other: `${p}status:other:user:`, pending: `${p}status:pending:user:` },
    });
    const keys = [`${p}all`, `${p}words`, `${p}words:seen`];
    // Ties are ordered by id: accented, escaped, long | plain.
    const first = await run("payouts-search-backfill", keys, [JSON.stringify(options(""))]);
    expect(first).toEqual([
      "1000:long",
      1,
      "accented",
      JSON.stringify("Aïcha Ngono"),
      "",
      "",
      "escaped",
      JSON.stringify("Paul\nEssomba"),
      "",
      "",
    ]);
    // The cursor's payout gone meanwhile: the walk goes on after where it was.
    await redis.zrem(`${p}all`, "long");
    const second = await run("payouts-search-backfill", keys, [
      JSON.stringify(options("1000:long")),
    ]);
    expect(second).toEqual(["", 1]);
    await redis.zadd(`${p}all`, 1000, "long");
    expect(
      await run("payouts-search-backfill", keys, [JSON.stringify(options("1000:escaped"))]),
    ).toEqual(["", 2]);
    // The words folded in Redis are searchWordsOf's, exactly.
    for (const id of ["plain", "long"]) {
      const words = searchWordsOf(texts[id] ?? { recipientName: "", note: "", recipientAlias: "" });
      const indexed: string[] = [];
      // KEYS on every primary: on a cluster, one node holds the prefix's slot.
      const found = await Promise.all(primaries(redis).map((node) => node.keys(`${p}word:*`)));
      for (const key of found.flat()) {
        if ((await redis.zscore(key, id)) !== null) indexed.push(key.slice(`${p}word:`.length));
      }
      expect(indexed.sort(), id).toEqual([...words].sort());
      expect(words.length, id).toBeGreaterThan(id === "long" ? MAX_SEARCH_WORDS - 1 : 7);
    }
    expect(await redis.zrange(`${p}status:pending`, 0, -1)).toEqual(["long", "plain"]);
    expect(await redis.zscore(`${p}words:seen`, "mbarga")).toBe("1000");
  },

  "payouts-count-settled": async (redis, p, run) => {
    await redis.hset(`${p}payout:a`, ...payoutFields("failed"), ...KIND_FIELDS);
    await redis.hset(`${p}payout:b`, ...payoutFields("success"), ...KIND_FIELDS, "fee", "10");
    // Counted by its own move already, and not in a counted state: both left alone.
    await redis.hset(`${p}payout:c`, ...payoutFields("success"), ...KIND_FIELDS, "totalsDay", "1");
    await redis.hset(`${p}payout:d`, ...payoutFields("pending"), ...KIND_FIELDS);
    const options = {
      payouts: ["a", "b", "c", "d", "gone"].map((id) => ({ id, day: "2026-11-24" })),
      payoutPrefix: `${p}payout:`,
      counted: ['"success"', '"failed"'],
      totalsPrefix: `${p}totals:`,
      totalsKeptMs: "60000",
    };
    expect(await run("payouts-count-settled", [`${p}all`], [JSON.stringify(options)])).toBe(2);
    const counted = {
      "mtn:disbursement:failed_xaf": "5000",
      "mtn:disbursement:failed_count": "1",
      "mtn:disbursement:paid_xaf": "5000",
      "mtn:disbursement:paid_count": "1",
      "mtn:disbursement:fees_xaf": "10",
    };
    expect(await redis.hgetall(`${p}totals:2026-11-24`)).toEqual(counted);
    expect(await redis.hgetall(`${p}totals:2026-11-24:user:1`)).toEqual(counted);
    // Running it again counts nothing twice.
    expect(await run("payouts-count-settled", [`${p}all`], [JSON.stringify(options)])).toBe(0);
    expect(await redis.hgetall(`${p}totals:2026-11-24`)).toEqual(counted);
  },

  "payouts-oldest-in-state": async (redis, p, run) => {
    const waiting = (id: string, created: number, initiator: number, sent?: number) =>
      redis.hset(
        `${p}payout:${id}`,
        ...payoutFields("unknown"),
        "createdAtMs",
        created,
        "initiatorId",
        initiator,
        ...(sent === undefined ? [] : ["sentAtMs", sent]),
      );
    await waiting("a", 3000, 1);
    await waiting("b", 1000, 2, 5000);
    await waiting("c", 2000, 1);
    await redis.hset(`${p}payout:moved`, ...payoutFields("failed"), "createdAtMs", 500);
    await redis.sadd(`${p}state:unknown`, "a", "b", "c", "moved", "gone");
    const oldest = (limit: number, userId = "", leftBefore = "") =>
      run(
        "payouts-oldest-in-state",
        [`${p}state:unknown`],
        [
          JSON.stringify({
            payoutPrefix: `${p}payout:`,
            state: '"unknown"',
            limit: String(limit),
            userId,
            leftBefore,
          }),
        ],
      );
    // Those still in the state, counted; the oldest by creation first.
    expect(await oldest(2)).toEqual([3, "b", "c"]);
    expect(await oldest(10, "1")).toEqual([2, "c", "a"]);
    // Left before 4000: b was sent at 5000 (created earlier), a and c never sent.
    expect(await oldest(10, "", "4000")).toEqual([2, "c", "a"]);
  },

  "payouts-by-words": async (redis, p, run) => {
    for (const id of ["a", "b", "c"])
      await redis.hset(`${p}payout:${id}`, ...payoutFields("success"));
    await redis.zadd(`${p}words`, 0, "aicha", 0, "aissatou", 0, "ngono", 0, "ngoa");
    await redis.zadd(`${p}word:aicha`, 1000, "a", 3000, "c");
    await redis.zadd(`${p}word:aissatou`, 2000, "b");
    await redis.zadd(`${p}word:ngono`, 1000, "a");
    await redis.zadd(`${p}word:ngoa`, 2000, "b");
    const keys = ["words", "scratch:and", "scratch:0", "scratch:1"].map((key) => `${p}${key}`);
    const search = (words: string[], maxWords = 10, maxEntries = 10) =>
      run("payouts-by-words", keys.slice(0, 2 + words.length), [
        JSON.stringify({
          words,
          wordPrefix: `${p}word:`,
          fromMs: "0",
          toMs: "5000",
          offset: "0",
          limit: "10",
          maxWords: String(maxWords),
          maxEntries: String(maxEntries),
          payoutPrefix: `${p}payout:`,
        }),
      ]) as Promise<unknown[]>;
    const ids = (reply: unknown[]) => reply.filter((_, index) => index >= 3 && index % 2 === 1);
    // "ai" widens to aicha and aissatou; "ngo" to ngono and ngoa; both hold for a and b.
    const both = await search(["ai", "ngo"]);
    expect(both.slice(0, 3)).toEqual(["found", 2, 1]);
    expect(ids(both)).toEqual(["b", "a"]);
    expect(ids(await search(["aicha"]))).toEqual(["c", "a"]);
    expect(await search(["zz"])).toEqual(["found", 0, 1]);
    // "ai" begins 2 words: over a widening of 1 it is too broad, "ngono" answers alone.
    const narrowed = await search(["ai", "ngono"], 1);
    expect(narrowed.slice(0, 3)).toEqual(["found", 1, 0]);
    expect(ids(narrowed)).toEqual(["a"]);
    expect(await search(["ai"], 1)).toEqual(["too_broad"]);
    // "ai" widens to words holding 3 entries together: over a cap of 2, too broad as well.
    expect(await search(["ai"], 10, 2)).toEqual(["too_broad"]);
    expect((await search(["ai", "ngono"], 10, 2)).slice(0, 3)).toEqual(["found", 1, 0]);
    expect(await redis.exists(...keys.slice(1))).toBe(0);
  },

  "pin-set": async (redis, p, run) => {
    const keys = [`${p}pin`, `${p}outbox`];
    expect(await run("pin-set", keys, ["hash-1", 1000, 1000, "pin_renewed:7:1000"])).toEqual([
      "set",
      "0",
    ]);
    // Set already: the first hash stays; no reset before it, so nothing was queued.
    expect(await run("pin-set", keys, ["hash-2", 2000, 2000, "pin_renewed:7:2000"])).toEqual([
      "already",
    ]);
    expect(await redis.hgetall(`${p}pin`)).toEqual({ hash: "hash-1", setAtMs: "1000", tries: "0" });
    expect(await redis.zcard(`${p}outbox`)).toBe(0);
    // After a reset at 5 500 ms, during a lock until 9 000: locked, then init data signed
    // before the reset's second is stale; signed in it (5 000) sets, and tells the admins.
    await redis.del(`${p}pin`);
    await redis.hset(`${p}pin`, "resetAtMs", 5500, "lockedUntilMs", 9000);
    expect(await run("pin-set", keys, ["h", 6000, 6000, "pin_renewed:7:6000"])).toEqual([
      "locked",
      "9000",
    ]);
    expect(await run("pin-set", keys, ["h", 9000, 4000, "pin_renewed:7:9000"])).toEqual(["stale"]);
    expect(await run("pin-set", keys, ["h", 9000, 5000, "pin_renewed:7:9000"])).toEqual([
      "set",
      "1",
    ]);
    expect(await redis.hgetall(`${p}pin`)).toEqual({ hash: "h", setAtMs: "9000", tries: "0" });
    expect(await redis.zrange(`${p}outbox`, 0, -1)).toEqual(["pin_renewed:7:9000"]);
  },

  "pin-reset": async (redis, p, run) => {
    const keys = [`${p}pin`, `${p}outbox`];
    expect(await run("pin-reset", keys, [1000, "pin_reset:7:1:1000"])).toBe(0);
    expect(await redis.zcard(`${p}outbox`)).toBe(0);
    await redis.hset(`${p}pin`, "hash", "h", "tries", 2, "window", "900 950", "unseenWrong", 2);
    await redis.hset(`${p}pin`, "lastWrongAtMs", 950, "lockedUntilMs", 9000);
    expect(await run("pin-reset", keys, [1000, "pin_reset:7:1:1000"])).toBe(1);
    // The lock stays; the rest goes; the reset's time is kept for the next set.
    expect(await redis.hgetall(`${p}pin`)).toEqual({ lockedUntilMs: "9000", resetAtMs: "1000" });
    expect(await redis.zrange(`${p}outbox`, 0, -1)).toEqual(["pin_reset:7:1:1000"]);
  },

  "payouts-totals-backfill": async (redis, p, run) => {
    await redis.hset(`${p}payout:a`, ...payoutFields("failed"), "createdAtMs", "1000");
    await redis.hset(`${p}payout:b`, ...payoutFields("success"), "createdAtMs", "1000");
    await redis.hset(`${p}payout:b`, "settledAtMs", "1500");
    await redis.hset(`${p}payout:c`, ...payoutFields("success"), "createdAtMs", "1000");
    await redis.hset(`${p}payout:c`, "totalsDay", '"2026-11-24"');
    await redis.hset(`${p}payout:d`, ...payoutFields("pending"), "createdAtMs", "1000");
    await redis.zadd(`${p}all`, 500, "old", 1000, "a", 1000, "b", 1000, "c", 1000, "d");
    await redis.zadd(`${p}all`, 1000, "gone", 3000, "late");
    const options = (cursor: string) => ({
      cursor,
      fromMs: "900",
      toMs: "2000",
      limit: "2",
      payoutPrefix: `${p}payout:`,
      counted: ['"success"', '"failed"'],
    });
    const page = (cursor: string) =>
      run("payouts-totals-backfill", [`${p}all`], [JSON.stringify(options(cursor))]);
    // Only what needs counting comes back: not counted yet, in a counted state.
    expect(await page("")).toEqual(["1000:b", "a", "", "1000", "b", "1500", "1000"]);
    expect(await page("1000:b")).toEqual(["1000:d"]);
    expect(await page("1000:d")).toEqual([""]);
    // Writes nothing.
    expect(await redis.hexists(`${p}payout:a`, "totalsDay")).toBe(0);
  },

  "pin-begin-try": async (redis, p, run) => {
    const keys = [`${p}pin`, `${p}outbox`];
    const begin = (nowMs = 1000) =>
      run("pin-begin-try", keys, [nowMs, 2, 9000, "pin_locked:7:9000", 3, nowMs - 500]);
    expect(await begin()).toEqual(["none"]);
    await redis.hset(`${p}pin`, "hash", "h", "tries", 0);
    expect(await begin()).toEqual(["try", "h", "0", "0"]);
    expect(await begin()).toEqual(["try", "h", "0", "0"]);
    // A third try begun while two are counted passes the limit of 2: locked now, alert queued.
    expect(await begin()).toEqual(["locked", "9000", "1"]);
    expect(await redis.zrange(`${p}outbox`, 0, -1)).toEqual(["pin_locked:7:9000"]);
    expect(await begin()).toEqual(["locked", "9000", "0"]);
    // The window: three tries in it already (one too old to count), none in a row: the next
    // one passes the window's limit of 3 and locks; it tells of the unseen wrong tries.
    await redis.del(`${p}pin`, `${p}outbox`);
    await redis.hset(`${p}pin`, "hash", "h", "tries", 0, "window", "400 600 700");
    await redis.hset(`${p}pin`, "unseenWrong", 2, "lastWrongAtMs", 700);
    expect(await begin()).toEqual(["try", "h", "2", "700"]);
    expect(await redis.hget(`${p}pin`, "window")).toBe("600 700 1000");
    expect(await begin(1001)).toEqual(["locked", "9000", "1"]);
    expect(await redis.hget(`${p}pin`, "window")).toBeNull();
  },

  "pin-finish-try": async (redis, p, run) => {
    const keys = [`${p}pin`, `${p}outbox`];
    const finish = (right: "1" | "0", unseen = 0) =>
      run("pin-finish-try", keys, [
        right,
        1000,
        3,
        9000,
        "pin_locked:7:9000",
        4,
        500,
        1000,
        unseen,
        `pin_wrong_tries:7:${unseen}:900:1000`,
      ]);
    // Reset while the try ran: even a right answer is wrong.
    expect(await finish("1")).toEqual(["wrong", "3"]);
    await redis.hset(`${p}pin`, "hash", "h", "tries", 1, "window", "1000");
    expect(await finish("0")).toEqual(["wrong", "2"]);
    expect(await redis.hmget(`${p}pin`, "unseenWrong", "lastWrongAtMs")).toEqual(["1", "1000"]);
    // Right: its own try leaves the window (the wrong one stays), and the unseen one is told.
    await redis.hset(`${p}pin`, "window", "1000 1000");
    expect(await finish("1", 1)).toEqual(["right"]);
    expect(await redis.hmget(`${p}pin`, "tries", "window", "unseenWrong")).toEqual([
      "0",
      "1000",
      null,
    ]);
    expect(await redis.zrange(`${p}outbox`, 0, -1)).toEqual(["pin_wrong_tries:7:1:900:1000"]);
    await redis.del(`${p}outbox`);
    await redis.hset(`${p}pin`, "tries", 3);
    expect(await finish("0")).toEqual(["locked", "9000", "1"]);
    expect(await redis.zrange(`${p}outbox`, 0, -1)).toEqual(["pin_locked:7:9000"]);
    // Four in the window (one at or before its start does not count) lock it too.
    await redis.del(`${p}pin`, `${p}outbox`);
    await redis.hset(`${p}pin`, "hash", "h", "tries", 1, "window", "500 600 700 800");
    expect(await finish("0")).toEqual(["wrong", "1"]);
    await redis.hset(`${p}pin`, "window", "600 700 800 1000");
    expect(await finish("0")).toEqual(["locked", "9000", "1"]);
  },

  "rate-limit-take": async (redis, p, run) => {
    const take = (member: string) => run("rate-limit-take", [`${p}limit`], [1, 60_000, member]);
    const [granted, , atMs] = (await take("m1")) as number[];
    expect(granted).toBe(1);
    expect(atMs).toBeGreaterThan(0);
    const [refused, retryInMs] = (await take("m2")) as number[];
    expect(refused).toBe(0);
    expect(retryInMs).toBeGreaterThan(0);
    // Background work (limit 3, its own 1): people's grants do not count in its own log.
    const both = (member: string, background: string) =>
      run("rate-limit-take", [`${p}shared`], [3, 60_000, member, background]);
    expect(((await both("person", "")) as number[])[0]).toBe(1);
    expect(((await both("work-1", "1")) as number[])[0]).toBe(1);
    expect(((await both("work-2", "1")) as number[])[0]).toBe(0);
    expect(await redis.zrange(`${p}shared:background`, 0, -1)).toEqual(["work-1"]);
    expect(await redis.pttl(`${p}shared:background`)).toBeGreaterThan(0);
    // The whole limit bounds both: one left, a person takes it, then background work waits.
    expect(((await both("person-2", "")) as number[])[0]).toBe(1);
    expect(((await both("work-3", "2")) as number[])[0]).toBe(0);
    // (Sorted by name: grants in the same millisecond sort by member.)
    expect((await redis.zrange(`${p}shared`, 0, -1)).sort()).toEqual([
      "person",
      "person-2",
      "work-1",
    ]);
  },

  "recipient-write": async (redis, p, run) => {
    const keys = ["recipients", "phones", "paid"].map((part) => `${p}${part}`);
    const entry = (rev: number, phone: string) => JSON.stringify({ rev, phone, alias: "jean" });
    expect(
      await run("recipient-write", keys, [
        "jean",
        "0",
        entry(1, "237670000001"),
        "237670000001",
        2,
      ]),
    ).toEqual(["written"]);
    expect(await redis.hget(`${p}phones`, "237670000001")).toBe("1");
    // A change made on an older revision is refused with what is there now.
    expect(
      await run("recipient-write", keys, [
        "jean",
        "0",
        entry(1, "237690000001"),
        "237690000001",
        2,
      ]),
    ).toEqual(["conflict", entry(1, "237670000001")]);
    await run("recipient-write", keys, ["ama", "0", entry(1, "237690000001"), "237690000001", 2]);
    expect(
      await run("recipient-write", keys, [
        "kofi",
        "0",
        entry(1, "237650000001"),
        "237650000001",
        2,
      ]),
    ).toEqual(["full"]);
    await redis.hset(`${p}paid`, "237670000001", "5000");
    expect(await run("recipient-write", keys, ["jean", "1", "", "", 2])).toEqual(["written"]);
    expect(await redis.hexists(`${p}recipients`, "jean")).toBe(0);
    expect(await redis.hexists(`${p}phones`, "237670000001")).toBe(0);
    expect(await redis.hexists(`${p}paid`, "237670000001")).toBe(0);
  },

  "schedule-move": async (redis, p, run) => {
    const keys = ["schedule", "due", "outbox", "audit", "runs", "rows"].map(
      (part) => `${p}${part}`,
    );
    await redis.set(`${p}schedule`, JSON.stringify({ id: "s1", state: "awaiting_confirmation" }));
    await redis.set(`${p}rows`, "[]", "PX", 60_000);
    await redis.hset(`${p}runs`, "202612240900", "{}");
    const options = (allowed: string[], to: string, expectRunKey = "") =>
      JSON.stringify({
        allowed,
        to,
        nowMs: "1000",
        minId: "0",
        running: ["active"],
        expectRunKey,
        retentionMs: "60000",
        ended: ["deleted"],
      });
    const patch = JSON.stringify({ nextRunAtMs: 5000, nextRunKey: "202612240900" });
    const draft = JSON.stringify({ action: "schedule_confirm" });
    const moved = await run("schedule-move", keys, [
      options(["awaiting_confirmation"], "active"),
      patch,
      "[]",
      '["schedule:s1"]',
      draft,
    ]);
    expect(moved).toEqual([1, expect.stringContaining('"state":"active"')]);
    expect(await redis.zscore(`${p}due`, "s1")).toBe("5000");
    // A scheduled batch's rows are kept as long as the schedule may run.
    expect(await redis.pttl(`${p}rows`)).toBe(-1);
    expect(await redis.zrange(`${p}outbox`, 0, -1)).toEqual(["schedule:s1"]);
    const [entry] = await redis.xrange(`${p}audit`, "-", "+");
    expect(JSON.parse(entry?.[1][1] ?? "{}").details).toEqual({
      from: "awaiting_confirmation",
      to: "active",
    });
    // Not from an allowed state, or not at the run expected: nothing moves.
    expect(
      await run("schedule-move", keys, [options(["paused"], "active"), "{}", "[]", "[]", ""]),
    ).toEqual([0, expect.any(String)]);
    expect(
      await run("schedule-move", keys, [
        options(["active"], "paused", "other"),
        "{}",
        "[]",
        "[]",
        "",
      ]),
    ).toEqual([0, expect.any(String)]);
    // An ended schedule leaves the due index and expires with its runs.
    await run("schedule-move", keys, [
      options(["active"], "deleted"),
      "{}",
      '["nextRunAtMs"]',
      "[]",
      "",
    ]);
    expect(await redis.zscore(`${p}due`, "s1")).toBeNull();
    expect(await redis.pttl(`${p}schedule`)).toBeGreaterThan(0);
    expect(await redis.pttl(`${p}runs`)).toBeGreaterThan(0);
    expect(await redis.pttl(`${p}rows`)).toBeGreaterThan(0);
  },

  "schedule-run": async (redis, p, run) => {
    const keys = ["runs", "held", "outbox", "audit", "schedule", "sending"].map(
      (part) => `${p}${part}`,
    );
    const args = (state: string, allowed: string[], scheduleIn = "") => [
      "202612240900",
      JSON.stringify({ key: "202612240900", state, updatedAtMs: 500 }),
      JSON.stringify(allowed),
      "1000",
      "[]",
      JSON.stringify({ action: "schedule_run_held" }),
      "0",
      "s1:202612240900",
      scheduleIn,
    ];
    // Only while the schedule is in a state given: none stored, then paused, refused.
    expect(await run("schedule-run", keys, args("sending", ["none"], '["active"]'))).toEqual([
      0,
      "",
    ]);
    await redis.set(`${p}schedule`, JSON.stringify({ state: "paused" }));
    expect(await run("schedule-run", keys, args("sending", ["none"], '["active"]'))).toEqual([
      0,
      "",
    ]);
    expect(await run("schedule-run", keys, args("held", ["none"]))).toEqual([
      1,
      expect.any(String),
    ]);
    expect(await redis.sismember(`${p}held`, "s1:202612240900")).toBe(1);
    // Recorded already: 'none' no longer matches.
    expect(await run("schedule-run", keys, args("held", ["none"]))).toEqual([
      0,
      expect.any(String),
    ]);
    expect(await run("schedule-run", keys, args("sent", ["held"]))).toEqual([
      1,
      expect.any(String),
    ]);
    expect(await redis.sismember(`${p}held`, "s1:202612240900")).toBe(0);
    expect(await redis.xlen(`${p}audit`)).toBe(2);
    // A run sending is indexed by its own updatedAtMs until it moves on.
    await redis.del(`${p}schedule`);
    expect(await run("schedule-run", keys, args("sending", ["sent"]))).toEqual([
      1,
      expect.any(String),
    ]);
    expect(await redis.zscore(`${p}sending`, "s1:202612240900")).toBe("500");
    expect(await run("schedule-run", keys, args("missed", ["sending"]))).toEqual([
      1,
      expect.any(String),
    ]);
    expect(await redis.zcard(`${p}sending`)).toBe(0);
  },

  "staff-set": async (redis, p, run) => {
    const keys = [`${p}staff`, `${p}origins`, `${p}granted`];
    expect(await run("staff-set", keys, ["1", "admin", '{"by":"STAFF"}', 1000])).toBe(1);
    expect(await run("staff-set", keys, ["1", "admin", "", 2000])).toBe(1);
    expect(await redis.hget(`${p}staff`, "1")).toBe("admin");
    // The same role again keeps its grant time; no origin removes it.
    expect(await redis.hget(`${p}granted`, "1")).toBe("1000");
    expect(await redis.hget(`${p}origins`, "1")).toBeNull();
  },

  "throttle-take": async (redis, p, run) => {
    expect(await run("throttle-take", [`${p}throttle`], [1, 60_000])).toBe(1);
    expect(await run("throttle-take", [`${p}throttle`], [1, 60_000])).toBe(0);
    expect(await redis.pttl(`${p}throttle`)).toBeGreaterThan(0);
  },
};

/** The fields of a payout record as the store writes them (JSON-encoded values). */
/** What a payout is counted under in the day totals (totals.lua). */
const KIND_FIELDS = ["kind", '"disbursement"', "operator", '"mtn"'];

function payoutFields(state: string): string[] {
  return [
    "state",
    JSON.stringify(state),
    "amount",
    "5000",
    "phone",
    '"237670000001"',
    "initiatorId",
    "1",
  ];
}

describe("the Lua scripts", () => {
  let redis: Redis;
  let prefix: string;

  beforeAll(() => {
    redis = testRedis();
  });

  afterEach(async () => {
    await dropPrefix(redis, prefix);
  });

  afterAll(async () => {
    await redis.quit();
  });

  it("are every .lua file of the folder, each with a header naming its KEYS and ARGV", () => {
    const files = readdirSync(LUA_DIR).filter((file) => file.endsWith(".lua"));
    expect(files.map((file) => file.slice(0, -4)).sort()).toEqual([...SCRIPT_NAMES].sort());
    for (const file of files) {
      const text = readFileSync(new URL(file, LUA_DIR), "utf8");
      const block = /^--\[\[\n([\s\S]*?)\n\]\]\n/.exec(text);
      const header = block?.[1] ?? "";
      expect(header, file).toMatch(/^ {2}Input:$/m);
      expect(header, file).toMatch(/^ {2}Output:$/m);
      const body = text.slice(block?.[0].length ?? 0);
      for (const used of new Set(body.match(/\b(?:KEYS|ARGV)\[\d+\]/g) ?? [])) {
        // Every KEYS[n] and ARGV[n] the body reads is named in the header (a range such as
        // ARGV[5..] names those after it).
        const [, kind, index] = /^(KEYS|ARGV)\[(\d+)\]$/.exec(used) ?? [];
        const named = new RegExp(`${kind}\\[(\\d+)(\\.\\.)?\\]`, "g");
        const covered = [...header.matchAll(named)].some(
          ([, from, open]) =>
            Number(from) === Number(index) || (open && Number(from) <= Number(index)),
        );
        expect(covered, `${file}: ${used}`).toBe(true);
      }
    }
  });

  it("have their includes expanded, each once, and take nothing spliced in", () => {
    for (const name of SCRIPT_NAMES) {
      const { source } = SCRIPTS[name];
      expect(source, name).not.toMatch(/^--!include/m);
      expect(source, name).not.toContain("${");
      expect(source.match(/^local function audit\(/gm)?.length ?? 0, name).toBeLessThanOrEqual(1);
    }
    expect(SCRIPTS["payout-transition"].source).toMatch(/^local function overLimit\(/m);
    expect(SCRIPTS["payout-transition"].source).toMatch(/^local function takeSlot\(/m);
    expect(SCRIPTS["rate-limit-take"].source).toMatch(/^local function takeSlot\(/m);
  });

  for (const name of SCRIPT_NAMES) {
    it(`runs ${name} on Redis as its header says`, async () => {
      prefix = testPrefix(`lua-${name}`);
      const run: Run = (script, keys, args) => runScript(redis, SCRIPTS[script], keys, args);
      await CASES[name](redis, prefix, run);
    });
  }

  it("sends a script's source when Redis does not know it (NOSCRIPT), and by SHA after", async () => {
    prefix = testPrefix("lua-noscript");
    // A script of its own (a unique comment, so a SHA no one else loads), to see each step.
    const script = luaScript("probe", `-- ${prefix}\nreturn redis.call('INCR', KEYS[1])`);
    const key = `${prefix}count`;
    const bySha = () => redis.evalsha(script.sha1, 1, key);
    const missing = await bySha().catch((error: unknown) => error);
    expect(isNoScript(missing)).toBe(true);
    expect(await runScript(redis, script, [key], [])).toBe(1);
    expect(await bySha()).toBe(2);
    // Forgotten again (a restart, a failover): the next call still runs, once.
    await redis.script("FLUSH");
    expect(await runScript(redis, script, [key], [])).toBe(3);
    expect(await redis.get(key)).toBe("3");
  });

  it("runs every script of the folder again after SCRIPT FLUSH", async () => {
    await redis.script("FLUSH");
    for (const name of SCRIPT_NAMES) {
      prefix = testPrefix(`lua-flushed-${name}`);
      const run: Run = (script, keys, args) => runScript(redis, SCRIPTS[script], keys, args);
      await CASES[name](redis, prefix, run);
      await dropPrefix(redis, prefix);
    }
  });
});

/**
 * The same cases on a Redis Cluster (three primaries): a merchant's prefix carries its hash
 * tag, so every key a script is given or builds from a prefix sits on one slot, and the
 * script runs on the node that owns it (ioredis routes EVALSHA by the first key). A script
 * given no key would run on any node, and fail on those that do not own the slot.
 */
describe("the Lua scripts on a Redis Cluster", () => {
  let cluster: RedisCluster;
  let redis: RedisClient;
  let prefix: string;

  beforeAll(async () => {
    cluster = await RedisCluster.start();
    redis = createRedisConnection(cluster.target());
    await waitForReady(redis, 10_000);
  }, 60_000);

  afterEach(async () => {
    await dropPrefix(redis, prefix);
  });

  afterAll(async () => {
    await redis.quit();
    await cluster.close();
  });

  for (const name of SCRIPT_NAMES) {
    it(`runs ${name} on the slot of its merchant`, async () => {
      // Merchants on several slots (and so nodes): each case runs for three of them.
      for (const merchant of ["alpha", "bravo", "charlie"]) {
        prefix = merchantKeyPrefix(testPrefix(`lua-${name}`), merchant);
        const run: Run = (script, keys, args) => runScript(redis, SCRIPTS[script], keys, args);
        await CASES[name](redis, prefix, run);
        await dropPrefix(redis, prefix);
      }
    });
  }
});
