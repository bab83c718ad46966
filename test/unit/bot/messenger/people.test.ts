import { describe, expect, it } from "vitest";
import { namesOf } from "../../../../src/bot/messenger/people.js";
import { createMemoryStores } from "../../../../src/store/memory.js";

function stores() {
  return createMemoryStores({ retentionMs: 60_000 });
}

describe("namesOf", () => {
  it("gives the first names it knows and leaves the others out", async () => {
    const { profiles } = stores();
    await profiles.set(7, { firstName: "Ama", username: "ama_k" });
    expect(await namesOf(profiles, [7, 8])).toEqual(new Map([[7, "Ama"]]));
  });
});
