import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readTransitionReply } from "../../../../src/store/redis/payout-move-args.js";

/** The zod union readTransitionReply replaced: it must accept and read exactly the same. */
const STATUSES = [
  "unchanged",
  "wrong_state",
  "payment_taken",
  "not_initiator",
  "expired",
  "needs_approval",
  "batch_stopped",
  "initiator_not_allowed",
  "decider_not_allowed",
  "decider_too_new",
  "already_signed",
  "signed",
  "applied",
] as const;
const Reference = z.union([
  z
    .tuple([z.enum(["not_found", "corrupt"])])
    .transform(([status]) => ({ status, fields: null, over: null, slot: undefined })),
  z
    .tuple([z.enum(STATUSES), z.array(z.string())])
    .transform(([status, fields]) => ({ status, fields, over: null, slot: undefined })),
  z
    .tuple([z.literal("applied"), z.array(z.string()), z.union([z.literal(0), z.literal(1)])])
    .transform(([status, fields, slot]) => ({ status, fields, over: null, slot: slot === 1 })),
  z
    .tuple([
      z.literal("over_limit"),
      z.array(z.string()),
      z.enum(["payer", "merchant"]),
      z.string().regex(/^-?\d+$/),
    ])
    .transform(([status, fields, limit, used]) => ({
      status,
      fields,
      over: { limit, usedXaf: Number(used) },
      slot: undefined,
    })),
]);

const FIELDS = ["id", '"po_1"', "state", '"pending"'];

describe("readTransitionReply", () => {
  it("reads every shape the script answers as the zod union did", () => {
    const good: unknown[] = [
      ["not_found"],
      ["corrupt"],
      ...STATUSES.map((status) => [status, FIELDS]),
      ["applied", [], 0],
      ["applied", FIELDS, 1],
      ["over_limit", FIELDS, "payer", "12000"],
      ["over_limit", FIELDS, "merchant", "-3"],
    ];
    for (const reply of good) expect(readTransitionReply(reply)).toEqual(Reference.parse(reply));
  });

  it("refuses what the zod union refused", () => {
    const bad: unknown[] = [
      null,
      "applied",
      [],
      ["not_found", FIELDS],
      ["applied"],
      ["moved", FIELDS],
      ["applied", [1, 2]],
      ["applied", "id"],
      ["applied", FIELDS, 2],
      ["applied", FIELDS, "1"],
      ["applied", FIELDS, 1, 1],
      ["signed", FIELDS, 1],
      ["over_limit", FIELDS],
      ["over_limit", FIELDS, "payer"],
      ["over_limit", FIELDS, "payer", 12000],
      ["over_limit", FIELDS, "payer", "12k"],
      ["over_limit", FIELDS, "staff", "1"],
      ["over_limit", FIELDS, "payer", "1", "extra"],
    ];
    for (const reply of bad) {
      expect(Reference.safeParse(reply).success).toBe(false);
      expect(() => readTransitionReply(reply)).toThrow(/payout-transition\.lua: unexpected reply/);
    }
  });
});
