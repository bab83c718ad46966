/**
 * /staff, end to end: an admin lists, adds and removes staff from the chat; the change
 * takes effect on the next update; every change is audited; nobody else may do it.
 */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { isNewReplyWith, sendAndWait, showPrompt } from "../../support/flows.js";
import { ADMIN_ID, harnessPerTest, PAYER_ID, STRANGER_ID } from "../../support/harness.js";

describe("/staff, end to end", () => {
  const h = harnessPerTest();
  const say = async (userId: number, text: string) =>
    plainText(
      await sendAndWait(h.emulator, h.emulator.user({ id: userId, languageCode: "en" }), text),
    );

  it("lists the staff and how to change them", async () => {
    const text = await say(ADMIN_ID, "/staff");
    expect(text).toContain(`${ADMIN_ID}: admin`);
    expect(text).toContain(`${PAYER_ID}: payer`);
    expect(text).toContain("/staff add USER_ID ROLE");
  });

  it("lets a newly added payer pay at once, and refuses them again once removed", async () => {
    expect(await say(STRANGER_ID, "/help")).toContain(`Your Telegram id is ${STRANGER_ID}`);

    expect(await say(ADMIN_ID, `/staff add ${STRANGER_ID} payer`)).toBe(
      `${STRANGER_ID} is now payer.`,
    );
    const prompt = await showPrompt(
      h.emulator,
      h.emulator.user({ id: STRANGER_ID }),
      "/pay 670000001 2500",
    );
    expect(plainText(prompt)).toContain("Jean-Paul Mbarga");

    // The removal also brings the admin a staff-change notice, in either order with the reply.
    const removed = await sendAndWait(
      h.emulator,
      h.emulator.user({ id: ADMIN_ID, languageCode: "en" }),
      `/staff remove ${STRANGER_ID}`,
      isNewReplyWith(ADMIN_ID, "is no longer staff"),
    );
    expect(plainText(removed)).toBe(`${STRANGER_ID} is no longer staff.`);
    // They are told they were removed too: wait for the refusal itself.
    const refused = await sendAndWait(
      h.emulator,
      h.emulator.user({ id: STRANGER_ID, languageCode: "en" }),
      "/pay 670000001 2500",
      isNewReplyWith(STRANGER_ID, "not allowed to use this bot"),
    );
    expect(plainText(refused)).toContain("not allowed to use this bot");

    // The stranger's /pay is audited too (a prompt): the staff changes are the admin's.
    const actions = (await h.app.stores.audit.recent(10))
      .filter((entry) => entry.action.startsWith("staff_"))
      .map((entry) => [entry.action, entry.actorId, entry.actorRole]);
    expect(actions).toEqual([
      ["staff_removed", ADMIN_ID, "admin"],
      ["staff_set", ADMIN_ID, "admin"],
    ]);
  });

  it("refuses to remove yourself, explains bad input, and is for admins only", async () => {
    expect(await say(ADMIN_ID, `/staff remove ${ADMIN_ID}`)).toBe("You cannot remove yourself.");
    expect(await say(ADMIN_ID, "/staff add 12 boss")).toContain("/staff add USER_ID ROLE");
    expect(await say(ADMIN_ID, "/staff add abc payer")).toContain("/staff add USER_ID ROLE");
    expect(await say(ADMIN_ID, "/staff remove 424242")).toBe("424242 was not staff.");
    expect(await say(PAYER_ID, `/staff add ${STRANGER_ID} admin`)).toBe("Only admins can do that.");
    expect(await h.app.stores.staff.get(STRANGER_ID)).toBeNull();
    expect(await h.app.stores.audit.recent(10)).toEqual([]);
  });
});
