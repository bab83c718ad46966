/** The address book's bound, on both stores: a new alias past the most kept is refused. */
import { afterEach, describe, expect, it } from "vitest";
import { MemoryRecipientStore } from "../../../src/store/memory/recipients.js";
import type { RecipientStore } from "../../../src/store/recipient-store.js";
import { RedisRecipientStore } from "../../../src/store/redis/recipients.js";
import { sampleRecipient } from "../../contract/recipient-store.contract.js";
import { dropPrefix, testPrefix, testRedis } from "../../support/redis.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const makers: Array<[string, () => RecipientStore]> = [
  ["memory", () => new MemoryRecipientStore(Date.now, 2)],
  [
    "redis",
    () => {
      const redis = testRedis();
      const prefix = testPrefix("recipients-bound");
      cleanups.push(async () => {
        await dropPrefix(redis, prefix);
        await redis.quit();
      });
      return new RedisRecipientStore(redis, prefix, { maxEntries: 2 });
    },
  ],
];

describe.each(makers)("the %s recipient store", (_name, make) => {
  it("refuses a new alias once it keeps the most, and still lets an entry be replaced", async () => {
    const store = make();
    expect(await store.put("a1", sampleRecipient({ alias: "a1" }), 0)).toEqual({
      outcome: "written",
    });
    await store.put("a2", sampleRecipient({ alias: "a2" }), 0);
    expect(await store.put("a3", sampleRecipient({ alias: "a3" }), 0)).toEqual({ outcome: "full" });
    expect(await store.get("a3")).toBeNull();
    const replaced = sampleRecipient({ alias: "a2", registeredName: "New Name", rev: 2 });
    expect(await store.put("a2", replaced, 1)).toEqual({ outcome: "written" });
    expect((await store.list()).length).toBe(2);
  });
});
