import { sign } from "@telegram-apps/init-data-node";
import { describe, expect, it } from "vitest";
import { authenticateWebApp, type WebAppAuthDeps } from "../../../src/http/webapp/auth.js";
import type { Role } from "../../../src/model/roles.js";

const TOKEN = "123456:test-token-for-init-data";
const NOW_MS = Date.UTC(2026, 10, 25, 12, 0, 0);

function deps(roles: Record<number, Role>, maxAgeSeconds = 3600): WebAppAuthDeps {
  return {
    botToken: TOKEN,
    maxAgeSeconds,
    now: () => NOW_MS,
    staff: {
      roleOf: async (id) => roles[id] ?? null,
      savedLocale: async (id) => (id === 7 ? "fr" : null),
    },
  };
}

function initData(
  user: { id: number; first_name: string; language_code?: string },
  authMs = NOW_MS,
  token = TOKEN,
) {
  return sign({ user, query_id: "q1" }, token, new Date(authMs));
}

describe("authenticateWebApp", () => {
  it("gives a staff member signed by Telegram their role, name and language, and when it was signed", async () => {
    const signedMs = NOW_MS - 90_000;
    const user = { id: 5, first_name: "Aïcha", language_code: "fr-CM" };
    const header = `tma ${initData(user, signedMs)}`;
    expect(await authenticateWebApp(header, deps({ 5: "approver" }))).toEqual({
      outcome: "ok",
      user: { id: 5, role: "approver", name: "Aïcha", language: "fr" },
      // Telegram's auth_date is in whole seconds.
      signedAtMs: Math.floor(signedMs / 1000) * 1000,
    });
  });

  it("prefers the language chosen with /lang over the Telegram app's", async () => {
    const header = `tma ${initData({ id: 7, first_name: "Paul", language_code: "en" })}`;
    const result = await authenticateWebApp(header, deps({ 7: "viewer" }));
    expect(result).toMatchObject({ outcome: "ok", user: { language: "fr", role: "viewer" } });
  });

  it("refuses a missing header, another scheme and a hash made with another token", async () => {
    const roles = { 5: "admin" as const };
    expect(await authenticateWebApp(undefined, deps(roles))).toEqual({
      outcome: "unauthorized",
      reason: "missing",
    });
    expect(await authenticateWebApp("Bearer abc", deps(roles))).toMatchObject({
      reason: "missing",
    });
    const forged = initData({ id: 5, first_name: "A" }, NOW_MS, "999:other");
    expect(await authenticateWebApp(`tma ${forged}`, deps(roles))).toEqual({
      outcome: "unauthorized",
      reason: "bad_signature",
    });
  });

  it("refuses init data whose user was changed after signing", async () => {
    const signed = initData({ id: 5, first_name: "A" });
    const tampered = signed.replace(encodeURIComponent('"id":5'), encodeURIComponent('"id":6'));
    expect(tampered).not.toBe(signed);
    expect(await authenticateWebApp(`tma ${tampered}`, deps({ 6: "admin" }))).toMatchObject({
      reason: "bad_signature",
    });
  });

  it("refuses stale init data and init data from the future", async () => {
    const roles = { 5: "admin" as const };
    const stale = initData({ id: 5, first_name: "A" }, NOW_MS - 3601_000);
    expect(await authenticateWebApp(`tma ${stale}`, deps(roles))).toEqual({
      outcome: "unauthorized",
      reason: "expired",
    });
    const justInTime = initData({ id: 5, first_name: "A" }, NOW_MS - 3600_000);
    expect(await authenticateWebApp(`tma ${justInTime}`, deps(roles))).toMatchObject({
      outcome: "ok",
    });
    const future = initData({ id: 5, first_name: "A" }, NOW_MS + 120_000);
    expect(await authenticateWebApp(`tma ${future}`, deps(roles))).toEqual({
      outcome: "unauthorized",
      reason: "from_the_future",
    });
  });

  it("refuses signed init data without a user", async () => {
    const noUser = sign({ query_id: "q" }, TOKEN, new Date(NOW_MS));
    expect(await authenticateWebApp(`tma ${noUser}`, deps({}))).toEqual({
      outcome: "unauthorized",
      reason: "no_user",
    });
  });

  it("answers forbidden for someone Telegram vouches for who is not staff", async () => {
    const header = `tma ${initData({ id: 9, first_name: "Stranger" })}`;
    expect(await authenticateWebApp(header, deps({ 5: "admin" }))).toEqual({
      outcome: "forbidden",
      reason: "not_staff",
    });
  });
});
