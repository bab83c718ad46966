import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/config/index.js";
import { schedulesEnvShape } from "../../../src/config/schedules.js";

function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig(env, "demo");
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected loadConfig to throw a ConfigError");
}

describe("schedules configuration", () => {
  it("runs at 09:00, catches up 24 h, retries 6 h and reminds 24 h ahead by default", () => {
    expect(loadConfig({}, "demo").schedules).toEqual({
      defaultTime: "09:00",
      catchUpMs: 24 * 3_600_000,
      retryMs: 6 * 3_600_000,
      reminderMs: 24 * 3_600_000,
    });
  });

  it("reads each variable, a time without its leading zero and reminders off", () => {
    const config = loadConfig(
      {
        SCHEDULE_DEFAULT_TIME: "7:30",
        SCHEDULE_CATCH_UP_HOURS: "2",
        SCHEDULE_RETRY_HOURS: "1",
        SCHEDULE_REMINDER_HOURS: "0",
      },
      "demo",
    );
    expect(config.schedules).toEqual({
      defaultTime: "07:30",
      catchUpMs: 2 * 3_600_000,
      retryMs: 3_600_000,
      reminderMs: 0,
    });
  });

  it("names every bad value at once", () => {
    const problems = problemsOf({
      SCHEDULE_DEFAULT_TIME: "25:00",
      SCHEDULE_CATCH_UP_HOURS: "-1",
      SCHEDULE_REMINDER_HOURS: "1.5",
    });
    expect(problems).toHaveLength(3);
    expect(problems.join("\n")).toContain("SCHEDULE_DEFAULT_TIME");
  });

  it("documents each of its variables in .env.example and docs/configuration.md", () => {
    const read = (path: string) =>
      readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");
    const example = read(".env.example");
    const readme = read("docs/configuration.md");
    for (const name of Object.keys(schedulesEnvShape)) {
      expect(example, name).toMatch(new RegExp(`^# ${name}=`, "m"));
      expect(readme, name).toMatch(new RegExp(`^\\| \`${name}\` \\|`, "m"));
    }
  });
});
