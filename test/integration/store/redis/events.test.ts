import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { keys } from "../../../../src/store/keys.js";
import { type EventDraft, RedisEventsStore } from "../../../../src/store/redis/events.js";
import { dropPrefix, testPrefix, testRedis } from "../../../support/redis.js";

function draft(id: string, subject: string): EventDraft {
  return { id, subject, createdMs: 1, body: JSON.stringify({ type: "payout.pending", id }) };
}

const failure = (eventId: string) => ({
  atMs: 1,
  eventId,
  type: "payout.pending",
  attempt: 1,
  answer: "500",
});

describe("RedisEventsStore", () => {
  const redis = testRedis();
  let prefix: string;
  let store: RedisEventsStore;

  beforeEach(() => {
    prefix = testPrefix("events");
    store = new RedisEventsStore(redis, keys(prefix));
  });
  afterEach(async () => {
    await dropPrefix(redis, prefix);
  });
  afterAll(async () => {
    await redis.quit();
  });

  const dueIds = async (nowMs: number) => (await store.due(nowMs, 10)).map((event) => event.id);

  it("makes each payout's next event due only once the one before it is settled", async () => {
    await store.startCursorAt("0-0");
    expect(await store.advance("0-0", "5-0", [draft("a1", "A"), draft("a2", "A")], 100)).toBe(true);
    expect(await store.advance("5-0", "6-0", [draft("b1", "B")], 100)).toBe(true);
    expect(await dueIds(100)).toEqual(["a1", "b1"]);

    // A's first fails: it waits, and A's second waits behind it; B goes on.
    await store.retry("a1", 5_000, failure("a1"));
    await store.settle("b1", "delivered", 200);
    expect(await dueIds(300)).toEqual([]);
    expect(await dueIds(5_000)).toEqual(["a1"]);
    await store.settle("a1", "delivered", 5_000);
    expect(await dueIds(5_000)).toEqual(["a2"]);

    const summary = await store.summary(5_000);
    expect(summary).toMatchObject({ deliveredLastDay: 2, waiting: 1, dropped: 0 });
    expect(summary.failures).toEqual([failure("a1")]);
  });

  it("queues nothing for a replica whose cursor is stale, and never queues a waiting event twice", async () => {
    await store.startCursorAt("0-0");
    expect(await store.advance("0-0", "5-0", [draft("a1", "A")], 100)).toBe(true);
    // Another replica read from 0-0 too, but the cursor has moved on.
    expect(await store.advance("0-0", "5-0", [draft("a1", "A")], 100)).toBe(false);
    expect(await store.requeue([draft("a1", "A"), draft("a2", "A")], 100)).toBe(1);
    expect(await dueIds(100)).toEqual(["a1"]);
    expect(await redis.lrange(keys(prefix).events("chain:A"), 0, -1)).toEqual(["a1", "a2"]);
  });

  it("disables the endpoint and queues the admins' notice once", async () => {
    expect(await store.disable(10, "events_disabled:10", failure("a1"))).toBe(true);
    expect(await store.disable(11, "events_disabled:11", failure("a1"))).toBe(false);
    expect(await store.state()).toBe("disabled");
    expect(await redis.zrange(keys(prefix).outbox(), 0, -1)).toEqual(["events_disabled:10"]);
    expect(await store.setState("active", 12, 1001)).toBe("disabled");
    expect(await store.state()).toBe("active");
  });
});
