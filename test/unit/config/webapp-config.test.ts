import { describe, expect, it } from "vitest";
import { webAppConfig } from "../../../src/config/webapp.js";

describe("webAppConfig", () => {
  it("is off without WEBAPP_URL and keeps init data an hour by default", () => {
    const problems: string[] = [];
    expect(webAppConfig({}, problems)).toEqual({ url: undefined, authMaxAgeSeconds: 3600 });
    expect(problems).toEqual([]);
  });

  it("takes an https URL and a max age in seconds", () => {
    const problems: string[] = [];
    const config = webAppConfig(
      { WEBAPP_URL: "https://pay.example.com/app/", WEBAPP_AUTH_MAX_AGE_SECONDS: "900" },
      problems,
    );
    expect(config).toEqual({ url: "https://pay.example.com/app/", authMaxAgeSeconds: 900 });
    expect(problems).toEqual([]);
  });

  it("names every problem: plain http, not a URL, an age out of range", () => {
    const http: string[] = [];
    webAppConfig({ WEBAPP_URL: "http://pay.example.com/app/" }, http);
    expect(http).toEqual([
      "WEBAPP_URL: must start with https:// (Telegram opens Mini Apps over https only)",
    ]);
    const bad: string[] = [];
    webAppConfig({ WEBAPP_URL: "pay", WEBAPP_AUTH_MAX_AGE_SECONDS: "5" }, bad);
    expect(bad).toEqual([
      "WEBAPP_URL: is not a URL; e.g. https://pay.example.com/app/",
      "WEBAPP_AUTH_MAX_AGE_SECONDS: a whole number of seconds from 60 to 86400",
    ]);
  });
});
