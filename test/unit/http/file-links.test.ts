/**
 * Signed file links (src/http/webapp/file-links.ts): a link checks out with the same token
 * until its time, and any change to its file, query, person, language or time, or another
 * token, makes it a forgery; a late one is told apart only when it is ours.
 */
import { describe, expect, it } from "vitest";
import {
  checkFileLink,
  FILE_LINK_TTL_SECONDS,
  signFileLink,
} from "../../../src/http/webapp/file-links.js";

const TOKEN = "123456:test-token";
const NOW = Date.UTC(2026, 10, 28, 12);

function made(query = "status=paid&q=Mbarga%20Jean") {
  const { path, expiresAtMs } = signFileLink({
    botToken: TOKEN,
    name: "history-csv",
    query: new URLSearchParams(query),
    userId: 42,
    language: "fr",
    nowMs: NOW,
  });
  return { url: new URL(path, "https://pay.example.test"), expiresAtMs };
}

function changed(url: URL, change: (params: URLSearchParams) => void, path = url.pathname): URL {
  const params = new URLSearchParams(url.searchParams);
  change(params);
  return new URL(`${path}?${params}`, url);
}

describe("signed file links", () => {
  it("check out with the person, language and query they were made for, until their time", () => {
    const { url, expiresAtMs } = made();
    expect(expiresAtMs).toBe(NOW + FILE_LINK_TTL_SECONDS * 1000);
    const check = checkFileLink(url, TOKEN, NOW + 60_000);
    expect(check).toMatchObject({ outcome: "ok", name: "history-csv", userId: 42, language: "fr" });
    if (check.outcome !== "ok") return;
    expect(Object.fromEntries(check.query)).toEqual({ status: "paid", q: "Mbarga Jean" });
    // The parameters in another order are the same link.
    const reordered = new URL(url.pathname, url);
    for (const [key, value] of [...url.searchParams].reverse()) {
      reordered.searchParams.append(key, value);
    }
    expect(checkFileLink(reordered, TOKEN, NOW).outcome).toBe("ok");
  });

  it("are forgeries once anything in them changes, or under another token", () => {
    const { url } = made();
    const forged = [
      changed(url, (p) => p.set("u", "43")),
      changed(url, (p) => p.set("lang", "en")),
      changed(url, (p) => p.set("status", "failed")),
      changed(url, (p) => p.append("kind", "collection")),
      changed(url, (p) => p.set("exp", String(Number(p.get("exp")) + 60))),
      changed(url, (p) => p.delete("sig")),
      changed(url, (p) => p.set("sig", "x")),
      changed(url, () => {}, "/app/file/audit.csv"),
    ];
    for (const link of forged) {
      expect(checkFileLink(link, TOKEN, NOW).outcome, link.toString()).toBe("forged");
    }
    expect(checkFileLink(url, "654321:other-token", NOW).outcome).toBe("forged");
  });

  it("are expired from their time on, and a forged late one is still a forgery", () => {
    const { url, expiresAtMs } = made();
    expect(checkFileLink(url, TOKEN, expiresAtMs - 1).outcome).toBe("ok");
    expect(checkFileLink(url, TOKEN, expiresAtMs).outcome).toBe("expired");
    const late = changed(url, (p) => p.set("u", "43"));
    expect(checkFileLink(late, TOKEN, expiresAtMs + 1).outcome).toBe("forged");
  });
});
