/**
 * `STAFF` bootstraps the staff list; `/staff` changes it at run time. A restart applies
 * `STAFF` again (applyBootstrapStaff, as startApp does) and must never undo a `/staff`
 * change: not a removal, not a new role. `/staff` shows where each role came from.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../../../src/logger.js";
import { applyBootstrapStaff } from "../../../src/payouts/staff-bootstrap.js";
import { isNewReplyWith, sendAndWait } from "../../support/flows.js";
import {
  ADMIN_ID,
  APPROVER_ID,
  harnessPerTest,
  PAYER_ID,
  VIEWER_ID,
} from "../../support/harness.js";

describe("STAFF and /staff across a restart", () => {
  const h = harnessPerTest();

  it("keeps /staff removals and role changes when STAFF is applied again at start", async () => {
    const admin = h.emulator.user({ id: ADMIN_ID, firstName: "Awa", languageCode: "en" });
    // The admin's chat also gets the staff-change notices, in any order with the replies:
    // each step waits for its own reply by what it says.
    const say = (text: string, replyContains: string) =>
      sendAndWait(h.emulator, admin, text, isNewReplyWith(ADMIN_ID, replyContains));
    await say(`/staff remove ${PAYER_ID}`, "is no longer staff");
    await say(`/staff add ${VIEWER_ID} payer`, "is now payer");

    // What every start does with STAFF (which still lists the payer as payer, the viewer as viewer).
    const result = await applyBootstrapStaff(
      h.app.stores.staff,
      h.app.payouts.staff,
      h.app.config.staff,
      silentLogger,
    );

    expect(result.keptRuntime).toBe(2);
    expect(await h.app.stores.staff.get(PAYER_ID)).toBeNull();
    expect(await h.app.stores.staff.get(VIEWER_ID)).toBe("payer");
    expect(await h.app.stores.staff.get(APPROVER_ID)).toBe("approver");
    const listing = plainText(await say("/staff", "from STAFF"));
    expect(listing).toContain(`${VIEWER_ID}: payer · set with /staff by ${ADMIN_ID}`);
    expect(listing).toContain(`${APPROVER_ID}: approver · from STAFF`);
    expect(listing).not.toContain(`${PAYER_ID}:`);
  });

  it("removes a member that came from STAFF once STAFF no longer lists them", async () => {
    const remaining = h.app.config.staff.filter((entry) => entry.userId !== APPROVER_ID);
    await applyBootstrapStaff(h.app.stores.staff, h.app.payouts.staff, remaining, silentLogger);
    expect(await h.app.stores.staff.get(APPROVER_ID)).toBeNull();
    expect(await h.app.stores.staff.get(ADMIN_ID)).toBe("admin");
  });
});
