import { describe, expect, it } from "vitest";
import { type PayoutPatch, PayoutSchema } from "../../../src/model/payout.js";
import { checkPatch } from "../../../src/store/payout-codec.js";

/** What checkPatch replaced: the whole patch schema, then `undefined` values dropped. */
const PatchSchema = PayoutSchema.omit({
  id: true,
  kind: true,
  state: true,
  recipientName: true,
  note: true,
  recipientAlias: true,
}).partial();

function bySchema(patch: unknown): Record<string, unknown> {
  const parsed = PatchSchema.parse(patch);
  return Object.fromEntries(Object.entries(parsed).filter(([, value]) => value !== undefined));
}

describe("checkPatch", () => {
  it("keeps what the patch schema keeps: valid fields, not undefined ones nor unknown ones", () => {
    const patches: unknown[] = [
      {},
      { paymentId: "pay_1", apiStatus: "pending", submittedAtMs: 1_700_000_000_000 },
      { limitDay: "2026-11-29", claimId: undefined, fee: 0 },
      { signatures: [], approvalRule: undefined, errorMessage: "" },
      // A field a patch may not set (searched by, or never changed by a patch) is dropped.
      { note: "new note", recipientName: "Other", state: "success", id: "x", other: 1 },
    ];
    for (const patch of patches) {
      expect(checkPatch(patch as PayoutPatch)).toEqual(bySchema(patch));
    }
    expect(Object.keys(checkPatch({ fee: undefined, paymentId: "p" }))).toEqual(["paymentId"]);
  });

  it("refuses a patch with a bad field, naming every problem as the schema does", () => {
    const bad = { amount: -5, limitDay: "29/11/2026", apiStatus: "PENDING", fee: 1 };
    expect(() => bySchema(bad)).toThrow();
    expect(() => checkPatch(bad as unknown as PayoutPatch)).toThrow(
      /^payout patch is not valid: amount: .+; limitDay: .+; apiStatus: .+$/,
    );
    expect(() => checkPatch({ pollCount: 1.5 })).toThrow(/pollCount/);
    expect(() => checkPatch({ signatures: [{ nope: true }] } as unknown as PayoutPatch)).toThrow(
      /signatures\.0\./,
    );
  });
});
