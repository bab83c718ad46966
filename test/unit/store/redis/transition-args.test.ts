import { describe, expect, it } from "vitest";
import { PAYOUT_EVENTS, sourcesOf, targetOf } from "../../../../src/model/lifecycle.js";
import { statusGroupOf } from "../../../../src/model/search.js";
import { keys } from "../../../../src/store/keys.js";
import { transitionArgs } from "../../../../src/store/redis/payout-move-args.js";

const k = keys("t:{m:one}:");

function optionsOf(event: (typeof PAYOUT_EVENTS)[number]) {
  const { args } = transitionArgs({
    keys: k,
    id: "p1",
    event,
    patch: {},
    options: {},
    nowMs: 1_800_000_000_000,
    retentionMs: 86_400_000,
    timeZone: "Africa/Douala",
  });
  return JSON.parse(args[0] ?? "") as {
    sources: string[];
    target: string;
    groups: Record<string, string>;
    statusKeys: Record<string, string>;
    userStatusPrefixes: Record<string, string>;
  };
}

describe("a move's arguments (payout-transition.lua's options)", () => {
  // The script moves the status group indexes from the group of the record's state (one of
  // the sources, or it refuses) to the target's: a state missing here would leave the
  // payout in its old group's index.
  it.each(PAYOUT_EVENTS)(
    "%s: names the group of every source and of the target, and its keys",
    (event) => {
      const options = optionsOf(event);
      const states = [...sourcesOf(event), targetOf(event)];
      expect(options.sources).toEqual(sourcesOf(event).map((state) => JSON.stringify(state)));
      expect(options.target).toBe(JSON.stringify(targetOf(event)));
      for (const state of states) {
        const group = statusGroupOf(state);
        expect(options.groups[JSON.stringify(state)]).toBe(group);
        expect(options.statusKeys[group]).toBe(k.statusPayouts(group));
        expect(options.userStatusPrefixes[group]).toBe(k.userStatusPrefix(group));
      }
      // Only those: the other states' groups are not sent on every move.
      expect(Object.keys(options.groups).sort()).toEqual(
        [...new Set(states.map((state) => JSON.stringify(state)))].sort(),
      );
    },
  );

  it("two events of one store do not share their groups (each event's own, kept apart)", () => {
    const claim = optionsOf("confirm");
    const settle = optionsOf("settle_success");
    expect(claim.groups).not.toEqual(settle.groups);
    expect(optionsOf("confirm")).toEqual(claim);
  });
});
