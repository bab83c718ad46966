import { describe, expect, it } from "vitest";
import { profileOf, StaffNames } from "../../../src/payouts/people.js";
import { createMemoryStores } from "../../../src/store/memory.js";

function stores() {
  return createMemoryStores({ retentionMs: 60_000 });
}

describe("StaffNames", () => {
  it("stores the name Telegram gives a staff member the first time", async () => {
    const { profiles } = stores();
    await new StaffNames(profiles).remember({ id: 7, first_name: "Ama", username: "ama_k" });
    expect((await profiles.getMany([7])).get(7)).toEqual({ firstName: "Ama", username: "ama_k" });
  });

  it("writes nothing while the name stays the same", async () => {
    const { profiles } = stores();
    const names = new StaffNames(profiles);
    await names.remember({ id: 7, first_name: "Ama" });
    // Written behind its back (another replica, say): an unchanged name does not write again.
    await profiles.set(7, { firstName: "Written elsewhere" });
    await names.remember({ id: 7, first_name: "Ama" });
    expect((await profiles.getMany([7])).get(7)).toEqual({ firstName: "Written elsewhere" });
  });

  it("writes again when the name or the username changed", async () => {
    const { profiles } = stores();
    const names = new StaffNames(profiles);
    await names.remember({ id: 7, first_name: "Ama" });
    await names.remember({ id: 7, first_name: "Ama", username: "ama_k" });
    expect((await profiles.getMany([7])).get(7)).toEqual({ firstName: "Ama", username: "ama_k" });
    await names.remember({ id: 7, first_name: "Amaka", username: "ama_k" });
    expect((await profiles.getMany([7])).get(7)).toEqual({
      firstName: "Amaka",
      username: "ama_k",
    });
  });

  it("keeps the Telegram app's language, and writes again when it changes", async () => {
    const { profiles } = stores();
    const names = new StaffNames(profiles);
    await names.remember({ id: 7, first_name: "Ama", language_code: "fr-CM" });
    expect((await profiles.getMany([7])).get(7)).toEqual({ firstName: "Ama", locale: "fr" });
    await names.remember({ id: 7, first_name: "Ama", language_code: "de" });
    expect((await profiles.getMany([7])).get(7)).toEqual({ firstName: "Ama", locale: "en" });
  });

  it("writes when the stored name is not Telegram's, on the first update a process sees", async () => {
    const { profiles } = stores();
    await profiles.set(7, { firstName: "Old name" });
    await new StaffNames(profiles).remember({ id: 7, first_name: "New name" });
    expect((await profiles.getMany([7])).get(7)).toEqual({ firstName: "New name" });
  });
});

describe("profileOf", () => {
  it("keeps one clean line of at most 64 characters", () => {
    expect(profileOf({ first_name: " Ama\n\u202eKouassi " })).toEqual({ firstName: "Ama Kouassi" });
    expect(profileOf({ first_name: "x".repeat(80) })?.firstName).toHaveLength(64);
    expect(profileOf({ first_name: "\u200b" })).toBeUndefined();
  });

  it("says nothing of the language when Telegram sent none", () => {
    expect(profileOf({ first_name: "Ama" })).toEqual({ firstName: "Ama" });
    expect(profileOf({ first_name: "Ama", language_code: "fr" })).toEqual({
      firstName: "Ama",
      locale: "fr",
    });
  });
});
