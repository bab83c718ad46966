import { describe, expect, it } from "vitest";
import { ROLES } from "../../../src/model/roles.js";
import {
  type Capability,
  confirmableBy,
  may,
  mayCancel,
  mayDecide,
  maySee,
  maySeeBatch,
  mayStopBatch,
  needsApproval,
} from "../../../src/payouts/policy.js";
import { acceptedPayout } from "../../support/payouts.js";

/** What each role may do, written out here on its own so the policy is checked against it. */
const EXPECTED: Record<(typeof ROLES)[number], Capability[]> = {
  admin: [
    "read",
    "pay",
    "approve",
    "see_everyone",
    "resolve",
    "manage_staff",
    "receive_alerts",
    "export",
    "audit",
    "see_all_spending",
    "stop_any_batch",
    "forget_any_recipient",
  ],
  approver: ["read", "pay", "approve"],
  payer: ["read", "pay"],
  viewer: ["read", "see_everyone", "export"],
};
const ALL: Capability[] = [
  "read",
  "pay",
  "approve",
  "see_everyone",
  "resolve",
  "manage_staff",
  "receive_alerts",
  "export",
  "audit",
  "see_all_spending",
  "stop_any_batch",
  "forget_any_recipient",
];

describe("policy", () => {
  for (const role of ROLES) {
    it(`lets ${role} do exactly what the table says`, () => {
      const granted = ALL.filter((capability) => may({ userId: 1, role }, capability));
      expect(granted).toEqual(EXPECTED[role]);
      expect(ALL.filter((capability) => may(role, capability))).toEqual(EXPECTED[role]);
    });
  }

  it("lets a batch be stopped by its initiator or an admin, and seen by whoever sees everyone's", () => {
    const batch = { initiatorId: 7 };
    expect(mayStopBatch({ userId: 7, role: "payer" }, batch)).toBe(true);
    expect(mayStopBatch({ userId: 8, role: "payer" }, batch)).toBe(false);
    expect(mayStopBatch({ userId: 8, role: "approver" }, batch)).toBe(false);
    expect(mayStopBatch({ userId: 9, role: "admin" }, batch)).toBe(true);
    expect(mayStopBatch(null, batch)).toBe(false);
    expect(maySeeBatch({ userId: 8, role: "payer" }, batch)).toBe(false);
    expect(maySeeBatch({ userId: 8, role: "viewer" }, batch)).toBe(true);
  });

  it("lets a stranger do nothing", () => {
    expect(ALL.filter((capability) => may(null, capability))).toEqual([]);
  });

  it("shows a payout to its initiator and to those who see everyone's, no one else", () => {
    const payout = acceptedPayout(Date.now(), { initiatorId: 7 });
    const seen = (userId: number, role: (typeof ROLES)[number]) => maySee({ userId, role }, payout);
    expect(seen(7, "payer")).toBe(true);
    expect(seen(8, "payer")).toBe(false);
    expect(seen(8, "approver")).toBe(false);
    expect(seen(8, "viewer")).toBe(true);
    expect(seen(8, "admin")).toBe(true);
    expect(maySee(null, payout)).toBe(false);
  });

  it("lets only the initiator confirm, and only while their role may still pay", () => {
    expect(confirmableBy({ userId: 7, role: "payer" })).toBe(7);
    expect(confirmableBy({ userId: 8, role: "admin" })).toBe(8);
    expect(confirmableBy({ userId: 7, role: "viewer" })).toBeNull();
    expect(confirmableBy(null)).toBeNull();
    const prompt = { initiatorId: 7 };
    expect(mayCancel({ userId: 7, role: "viewer" }, prompt)).toBe("allowed");
    expect(mayCancel({ userId: 8, role: "admin" }, prompt)).toBe("not_yours");
    expect(mayCancel(null, prompt)).toBe("not_allowed");
  });

  it("lets an approver or admin decide on someone else's payout, never on their own", () => {
    const payout = { initiatorId: 7 };
    expect(mayDecide({ userId: 8, role: "approver" }, payout)).toBe("allowed");
    expect(mayDecide({ userId: 8, role: "admin" }, payout)).toBe("allowed");
    expect(mayDecide({ userId: 7, role: "admin" }, payout)).toBe("own_payout");
    expect(mayDecide({ userId: 7, role: "approver" }, payout)).toBe("own_payout");
    expect(mayDecide({ userId: 8, role: "payer" }, payout)).toBe("not_allowed");
    expect(mayDecide({ userId: 8, role: "viewer" }, payout)).toBe("not_allowed");
    expect(mayDecide(null, payout)).toBe("not_allowed");
  });

  it("asks for a second person at the threshold and over it, and never when it is unset", () => {
    expect(needsApproval(99_999, 100_000)).toBe(false);
    expect(needsApproval(100_000, 100_000)).toBe(true);
    expect(needsApproval(5_000_000, 100_000)).toBe(true);
    expect(needsApproval(5_000_000, undefined)).toBe(false);
  });
});
