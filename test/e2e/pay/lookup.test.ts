/** /whois and /availability, end to end: from the update to the reply and the API request. */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { translator } from "../../../src/i18n.js";
import { sendAndWait } from "../../support/flows.js";
import { harnessPerTest, PAYER_ID, VIEWER_ID } from "../../support/harness.js";

const USERINFO = /^\/data\/userinfo\//;
const en = translator("en");

describe("/whois and /availability, end to end", () => {
  const h = harnessPerTest();

  async function reply(userId: number, text: string): Promise<string> {
    const user = h.emulator.user({ id: userId, languageCode: "en" });
    return plainText(await sendAndWait(h.emulator, user, text));
  }

  it("shows the registered name of a number", async () => {
    const text = await reply(PAYER_ID, "/whois +237 670 00 00 01");

    expect(text).toBe("👤 Jean-Paul Mbarga\n+237 670 00 00 01 (MTN MoMo)");
    expect(h.sandbox.requests.filter((r) => USERINFO.test(r.path)).map((r) => r.path)).toEqual([
      "/data/userinfo/237670000001",
    ]);
  });

  it("says a number has no mobile money account on a 404", async () => {
    const text = await reply(PAYER_ID, "/whois 690000004");

    expect(text).toContain("+237 690 00 00 04 has no mobile money account");
    expect(h.sandbox.countRequests({ method: "GET", path: "/data/userinfo/237690000004" })).toBe(1);
  });

  it("explains an invalid number and an empty one without asking the API", async () => {
    const invalid = await reply(PAYER_ID, "/whois 12345");
    expect(invalid).toContain("9 digits after +237");
    expect(invalid).toContain("Example: /whois 670000001");
    const empty = await reply(PAYER_ID, "/whois");
    expect(empty).toBe("Example: /whois 670000001");
    const nexttel = await reply(PAYER_ID, "/whois 660000001");
    expect(nexttel).toContain("Nexttel numbers cannot be paid");

    expect(h.sandbox.countRequests({ method: "GET", path: USERINFO })).toBe(0);
  });

  it("says the payment service is not answering when userinfo fails", async () => {
    h.sandbox.injectFault({ method: "GET", path: USERINFO, status: 500, times: 10 });

    const text = await reply(PAYER_ID, "/whois 670000001");

    expect(text).toContain("The payment service is not answering right now");
    expect(h.sandbox.countRequests({ method: "GET", path: USERINFO })).toBeGreaterThan(0);
  });

  it("refuses /whois to a viewer", async () => {
    const text = await reply(VIEWER_ID, "/whois 670000001");

    expect(text).toBe("Your role (viewer) can read payments but cannot make them.");
    expect(h.sandbox.countRequests({ method: "GET", path: USERINFO })).toBe(0);
  });

  it("shows both operators, one that is suspended, and since when each is as it is", async () => {
    // The watcher's first check (at start) is the first sight of every operation.
    await expect.poll(async () => (await h.app.stores.reports.availability()).length).toBe(4);
    const [seen] = await h.app.stores.reports.availability();
    h.sandbox.setAvailability("orange", "collection", "SUSPENDED");
    const before = h.sandbox.countRequests({ method: "GET", path: "/availability" });

    const text = await reply(VIEWER_ID, "/availability");

    const changed = (await h.app.stores.reports.availability()).find(
      (state) => state.operator === "orange" && state.operation === "collection",
    );
    const first = en.time(seen?.sinceMs ?? 0);
    expect(text).toBe(
      [
        "📶 Operators right now",
        "",
        `MTN MoMo: payouts ✅ Available (no change seen since ${first}); collections ✅ Available (no change seen since ${first})`,
        `Orange Money: payouts ✅ Available (no change seen since ${first}); collections ⛔ Suspended (since ${en.time(changed?.sinceMs ?? 0)})`,
      ].join("\n"),
    );
    expect(changed).toMatchObject({ status: "SUSPENDED", up: false, firstSeen: false });
    expect(h.sandbox.countRequests({ method: "GET", path: "/availability" })).toBe(before + 1);
  });

  it("asks the API afresh for /availability, while /pay reuses a fresh answer", async () => {
    await reply(PAYER_ID, "/availability");
    const after = h.sandbox.countRequests({ method: "GET", path: "/availability" });
    await reply(PAYER_ID, "/pay 670000001 5000");
    expect(h.sandbox.countRequests({ method: "GET", path: "/availability" })).toBe(after);

    await reply(PAYER_ID, "/availability");
    expect(h.sandbox.countRequests({ method: "GET", path: "/availability" })).toBe(after + 1);
  });
});
