/**
 * Who works where, without asking every merchant: routing a person's update reads the
 * merchants named in their `staff-of` set only (merchant-directory.ts), and a person made
 * staff of another merchant at runtime is found there at once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { globalKeys, keys, merchantKeyPrefix } from "../../../src/store/keys.js";
import { isNewReplyWith, isPromptIn, sendAndWait } from "../../support/flows.js";
import { testRedis } from "../../support/redis.js";
import { monitorRedis } from "../../support/redis-monitor.js";
import {
  ADA,
  BEA,
  type MerchantsHarness,
  startMerchantsHarness,
  VIC,
} from "./merchants-harness.js";

let h: MerchantsHarness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("the directory of who works for which merchant", () => {
  it("routes a person's update by reading only the merchants they work for", async () => {
    const started = await startMerchantsHarness();
    h = started;
    const bravoStaff = keys(merchantKeyPrefix(started.prefix, "bravo")).staff();
    const alphaStaff = keys(merchantKeyPrefix(started.prefix, "alpha")).staff();
    const reads = { alpha: 0, bravo: 0 };
    const monitor = await monitorRedis((args) => {
      if (args[0]?.toLowerCase() !== "hget" || args[2] !== String(ADA)) return;
      if (args[1] === bravoStaff) reads.bravo += 1;
      if (args[1] === alphaStaff) reads.alpha += 1;
    });
    try {
      const ada = started.emulator.user({ id: ADA, firstName: "Ada", languageCode: "en" });
      await sendAndWait(started.emulator, ada, "/pay 237670000001 1200", isPromptIn(ADA));
    } finally {
      monitor.close();
    }
    // Ada works for Alpha only: Alpha is asked (routing, then her role), Bravo never.
    expect(reads.alpha).toBeGreaterThan(0);
    expect(reads.bravo).toBe(0);
    const redis = testRedis();
    try {
      const named = await redis.smembers(globalKeys(started.prefix).staffOf(ADA));
      expect(named).toEqual(["alpha"]);
    } finally {
      await redis.quit();
    }
  });

  it("finds a person made staff of a second merchant at runtime, and lets them switch to it", async () => {
    const started = await startMerchantsHarness();
    h = started;
    const vic = started.emulator.user({ id: VIC, firstName: "Vic", languageCode: "en" });
    const bea = started.emulator.user({ id: BEA, firstName: "Bea", languageCode: "en" });
    await sendAndWait(started.emulator, vic, "/merchant", isNewReplyWith(VIC, "one business"));

    await sendAndWait(
      started.emulator,
      bea,
      `/staff add ${VIC} payer`,
      isNewReplyWith(BEA, "payer"),
    );
    const redis = testRedis();
    try {
      const named = await redis.smembers(globalKeys(started.prefix).staffOf(VIC));
      expect(named.sort()).toEqual(["alpha", "bravo"]);
    } finally {
      await redis.quit();
    }
    // The answer kept for a moment in the process was forgotten with the change.
    const list = await sendAndWait(
      started.emulator,
      vic,
      "/merchant",
      isNewReplyWith(VIC, "2 businesses"),
    );
    expect(JSON.stringify(list)).toContain("Bravo");
  });
});
