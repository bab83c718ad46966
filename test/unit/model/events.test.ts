import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../src/model/audit.js";
import { eventIdOf, eventSourceOf, retryDelayMs } from "../../../src/model/events.js";

function entry(action: string, extra: Partial<AuditEntry> = {}): AuditEntry {
  return { atMs: 1, actorId: 0, actorRole: "system", action, payoutId: "p1234567", ...extra };
}

describe("events from audit entries", () => {
  it("names a payout's steps, and a collection's as collection.*", () => {
    const steps = {
      submit: "submitted",
      accepted: "pending",
      lost: "unknown",
      refused: "failed",
      settle_success: "succeeded",
      settle_failed: "failed",
      settle_canceled: "canceled",
      resolve_with_id: "resolved",
      resolve_failed: "resolved",
      accepted_late: "pending",
    };
    for (const [action, step] of Object.entries(steps)) {
      expect(eventSourceOf(entry(action), "disbursement")?.type).toBe(`payout.${step}`);
      expect(eventSourceOf(entry(action), "collection")?.type).toBe(`collection.${step}`);
    }
  });

  it("names approvals, an approval's expiry but not a prompt's, and a batch's steps", () => {
    expect(eventSourceOf(entry("request_approval"), "disbursement")?.type).toBe(
      "approval.requested",
    );
    expect(eventSourceOf(entry("approve"), "disbursement")?.type).toBe("approval.approved");
    expect(eventSourceOf(entry("reject"), "collection")?.type).toBe("approval.rejected");
    const expired = entry("expire", { from: "awaiting_approval", to: "expired" });
    expect(eventSourceOf(expired, "disbursement")?.type).toBe("approval.expired");
    const prompt = entry("expire", { from: "awaiting_confirmation", to: "expired" });
    expect(eventSourceOf(prompt, "disbursement")).toBeNull();
    for (const action of ["prompt", "confirm", "cancel", "staff_set"]) {
      expect(eventSourceOf(entry(action), "disbursement")).toBeNull();
    }
    const batch = (action: string) => ({
      ...entry(action),
      payoutId: undefined,
      batchId: "b123456",
    });
    expect(eventSourceOf(batch("batch_confirm"), undefined)?.type).toBe("batch.confirmed");
    expect(eventSourceOf(batch("batch_done"), undefined)?.type).toBe("batch.completed");
    expect(eventSourceOf(batch("batch_stop"), undefined)?.type).toBe("batch.stopped");
    expect(eventSourceOf(batch("batch_upload"), undefined)).toBeNull();
  });

  it("gives each event the id of its audit entry, the same every time", () => {
    expect(eventIdOf("1764079200000-3")).toBe("evt_1764079200000_3");
    expect(eventIdOf("1764079200000-3")).toBe(eventIdOf("1764079200000-3"));
  });
});

describe("retryDelayMs", () => {
  const policy = { firstMs: 5_000, maxMs: 3_600_000 };

  it("starts at 5 s, doubles, and never passes an hour, jitter included", () => {
    expect(retryDelayMs(1, policy, () => 0)).toBe(5_000);
    expect(retryDelayMs(2, policy, () => 0)).toBe(10_000);
    expect(retryDelayMs(1, policy, () => 0.999)).toBeLessThan(6_000);
    expect(retryDelayMs(30, policy, () => 0.999)).toBe(3_600_000);
    for (let attempt = 1; attempt < 40; attempt += 1) {
      const delay = retryDelayMs(attempt, policy);
      expect(delay).toBeGreaterThanOrEqual(5_000);
      expect(delay).toBeLessThanOrEqual(3_600_000);
    }
  });
});
