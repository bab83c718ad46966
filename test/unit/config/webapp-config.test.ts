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

  it("takes plain http for a loopback host only: the local emulator's page on this machine", () => {
    for (const url of [
      "http://127.0.0.1:8080/app/",
      "http://localhost:8080/app/",
      "http://[::1]:8080/app/",
    ]) {
      const problems: string[] = [];
      expect(webAppConfig({ WEBAPP_URL: url }, problems).url).toBe(url);
      expect(problems).toEqual([]);
    }
    // A public host, a private network's address, a name that merely starts like one:
    // https only, as Telegram wants.
    for (const url of [
      "http://pay.example.com/app/",
      "http://192.168.1.10:8080/app/",
      "http://127.0.0.1.example.com/app/",
      "http://localhost.example.com/app/",
      "ftp://127.0.0.1/app/",
    ]) {
      const problems: string[] = [];
      webAppConfig({ WEBAPP_URL: url }, problems);
      expect(problems).toEqual([expect.stringMatching(/^WEBAPP_URL: must start with https:\/\//)]);
    }
  });

  it("names every problem: plain http, not a URL, an age out of range", () => {
    const http: string[] = [];
    webAppConfig({ WEBAPP_URL: "http://pay.example.com/app/" }, http);
    expect(http).toEqual([
      "WEBAPP_URL: must start with https:// (Telegram opens Mini Apps over https only); http:// is accepted only for 127.0.0.1, localhost or [::1] (the local emulator)",
    ]);
    const bad: string[] = [];
    webAppConfig({ WEBAPP_URL: "pay", WEBAPP_AUTH_MAX_AGE_SECONDS: "5" }, bad);
    expect(bad).toEqual([
      "WEBAPP_URL: is not a URL; e.g. https://pay.example.com/app/",
      "WEBAPP_AUTH_MAX_AGE_SECONDS: a whole number of seconds from 60 to 86400",
    ]);
  });
});
