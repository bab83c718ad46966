import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/config/index.js";
import { reportsEnvShape } from "../../../src/config/reports.js";

function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig(env, "demo");
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected loadConfig to throw a ConfigError");
}

describe("reports configuration", () => {
  it("has no digest, alerts every admin and checks availability every 2 minutes by default", () => {
    expect(loadConfig({}, "demo").reports).toEqual({
      digestHour: undefined,
      alertChatId: undefined,
      availabilityCheckMs: 120_000,
    });
  });

  it("reads the digest hour, an alert chat (a group's negative id too) and the check period", () => {
    const config = loadConfig(
      { DIGEST_HOUR: " 0 ", ALERT_CHAT_ID: "-1001234567890", AVAILABILITY_CHECK_SECONDS: "1" },
      "demo",
    );
    expect(config.reports).toEqual({
      digestHour: 0,
      alertChatId: -1001234567890,
      availabilityCheckMs: 1000,
    });
    expect(
      loadConfig({ DIGEST_HOUR: "23", ALERT_CHAT_ID: "424242" }, "demo").reports,
    ).toMatchObject({ digestHour: 23, alertChatId: 424242 });
  });

  it("lists every bad value at once, saying what would be right", () => {
    const problems = problemsOf({
      DIGEST_HOUR: "24",
      ALERT_CHAT_ID: "@finance",
      AVAILABILITY_CHECK_SECONDS: "0",
    });
    expect(problems).toEqual([
      'DIGEST_HOUR: must be an hour from 0 to 23, or unset for no digest (got "24")',
      "ALERT_CHAT_ID: must be a numeric Telegram chat id (a user's id, or a group's, e.g. -1001234567890), or unset for every admin (got \"@finance\")",
      'AVAILABILITY_CHECK_SECONDS: must be a whole number from 1 to 86400 (got "0")',
    ]);
    expect(problemsOf({ DIGEST_HOUR: "8.5" })).toHaveLength(1);
    expect(problemsOf({ AVAILABILITY_CHECK_SECONDS: "1.5" })).toHaveLength(1);
  });

  it("documents each of its variables in .env.example and docs/configuration.md", () => {
    const read = (path: string) =>
      readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");
    const example = read(".env.example");
    const readme = read("docs/configuration.md");
    for (const name of Object.keys(reportsEnvShape)) {
      expect(example, name).toMatch(new RegExp(`^# ${name}=`, "m"));
      expect(readme, name).toMatch(new RegExp(`^\\| \`${name}\` \\|`, "m"));
    }
  });
});
