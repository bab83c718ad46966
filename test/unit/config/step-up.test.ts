import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/config/index.js";

function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig(env, "demo");
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected loadConfig to throw a ConfigError");
}

const URL_OK = "https://pay.example.com/app/";

describe("step-up configuration", () => {
  it("asks no PIN when STEP_UP_THRESHOLD_XAF is unset or blank", () => {
    expect(loadConfig({}, "demo").stepUp).toBeUndefined();
    expect(loadConfig({ STEP_UP_THRESHOLD_XAF: " " }, "demo").stepUp).toBeUndefined();
    expect(loadConfig({}, "demo").rules.stepUpThresholdXaf).toBeUndefined();
  });

  it("reads the threshold with the Mini App's URL, and gives it to the payout rules", () => {
    const config = loadConfig({ STEP_UP_THRESHOLD_XAF: "250000", WEBAPP_URL: URL_OK }, "demo");
    expect(config.stepUp).toEqual({ thresholdXaf: 250_000, webAppUrl: URL_OK });
    expect(config.rules.stepUpThresholdXaf).toBe(250_000);
  });

  it("takes a loopback http WEBAPP_URL (the demo's), and refuses a public http one", () => {
    const local = "http://127.0.0.1:8080/app/";
    const config = loadConfig({ STEP_UP_THRESHOLD_XAF: "500000", WEBAPP_URL: local }, "demo");
    expect(config.stepUp).toEqual({ thresholdXaf: 500_000, webAppUrl: local });
    expect(
      problemsOf({ STEP_UP_THRESHOLD_XAF: "500000", WEBAPP_URL: "http://pay.example.com/app/" }),
    ).toEqual([expect.stringMatching(/^WEBAPP_URL: must start with https:\/\//)]);
  });

  it("takes a loopback http WEBAPP_URL for npm start only with the local emulator as its Telegram", () => {
    const start = {
      TELEGRAM_BOT_TOKEN: "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ",
      PAYMENT_API_KEY: "key",
      PAYMENT_API_BASE_URL: "http://127.0.0.1:8090",
      STAFF: "1:admin",
      STEP_UP_THRESHOLD_XAF: "500000",
      WEBAPP_URL: "http://127.0.0.1:8080/app/",
    };
    const local = loadConfig({ ...start, TELEGRAM_API_ROOT: "http://127.0.0.1:8081" }, "start");
    expect(local.stepUp?.webAppUrl).toBe("http://127.0.0.1:8080/app/");
    let problems: readonly string[] = [];
    try {
      loadConfig(start, "start");
    } catch (error) {
      if (error instanceof ConfigError) problems = error.problems;
    }
    expect(problems).toEqual([
      expect.stringMatching(/^WEBAPP_URL: http:\/\/ only works with the local emulator/),
    ]);
  });

  it("stops the start when a threshold is set without WEBAPP_URL, naming both", () => {
    const problems = problemsOf({ STEP_UP_THRESHOLD_XAF: "250000" });
    expect(problems).toEqual([
      expect.stringMatching(
        /^STEP_UP_THRESHOLD_XAF: needs WEBAPP_URL.*unset STEP_UP_THRESHOLD_XAF$/,
      ),
    ]);
  });

  it("refuses a threshold that is not a whole number of XAF in range, with every problem at once", () => {
    expect(problemsOf({ STEP_UP_THRESHOLD_XAF: "0", WEBAPP_URL: URL_OK })).toEqual([
      expect.stringContaining("STEP_UP_THRESHOLD_XAF: must be a whole number of XAF"),
    ]);
    expect(problemsOf({ STEP_UP_THRESHOLD_XAF: "5k" })).toHaveLength(2);
    expect(problemsOf({ STEP_UP_THRESHOLD_XAF: "9000000", WEBAPP_URL: URL_OK })).toHaveLength(1);
  });

  it("is documented in .env.example and docs/configuration.md", () => {
    const read = (path: string) =>
      readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");
    expect(read(".env.example")).toMatch(/^# STEP_UP_THRESHOLD_XAF=/m);
    expect(read("docs/configuration.md")).toMatch(/^\| `STEP_UP_THRESHOLD_XAF` \|/m);
  });
});
