import { describe, expect, it } from "vitest";
import {
  APPROVAL_NOTICE_KINDS,
  ATTENTION_REASONS,
  type Notice,
  noticeKey,
  parseNoticeKey,
} from "../../../src/model/notice.js";

const EVERY_NOTICE: Notice[] = [
  { kind: "settled", payoutId: "po_1" },
  ...ATTENTION_REASONS.map((reason) => ({ kind: "attention", payoutId: "po_2", reason }) as const),
  ...APPROVAL_NOTICE_KINDS.map((kind) => ({ kind, payoutId: "po_3" })),
  { kind: "events_disabled", atMs: 1764075734870 },
  { kind: "pin_locked", userId: 1002, untilMs: 1764075734870 },
  { kind: "pin_reset", userId: 1002, byUserId: 1001, atMs: 1764075734870 },
  { kind: "pin_reset", userId: 1001, byUserId: 0, atMs: 1764075734870 },
  { kind: "pin_renewed", userId: 1002, atMs: 1764075734870 },
  { kind: "pin_wrong_tries", userId: 1002, count: 4, lastAtMs: 1764075734000, atMs: 1764075734870 },
];

describe("notice keys", () => {
  it.each(EVERY_NOTICE)("reads back the key of %o as the same notice", (notice) => {
    expect(parseNoticeKey(noticeKey(notice))).toEqual(notice);
  });

  it("gives every notice a key of its own", () => {
    const keys = EVERY_NOTICE.map(noticeKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("reads a bare payout id, as older versions queued it, as settled", () => {
    expect(parseNoticeKey("po_old")).toEqual({ kind: "settled", payoutId: "po_old" });
  });

  it.each([
    "",
    "approval_requested:",
    "approval_decided:po_1:extra",
    "approval_later:po_1",
    "attention:bored:po_1",
    "events_disabled:soon",
    "pin_reset:1002:1001",
    "pin_reset:0:1001:1764075734870",
    "pin_renewed:1002:x",
    "pin_wrong_tries:1002:0:1:2",
  ])("names no notice with %j", (key) => {
    expect(parseNoticeKey(key)).toBeNull();
  });
});
