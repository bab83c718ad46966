import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/config/index.js";

const SECRET_BYTES = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const SECRET = `whsec_${SECRET_BYTES}`;

function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig(env, "demo");
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected loadConfig to throw a ConfigError");
}

describe("events configuration", () => {
  it("is off when both variables are unset or blank", () => {
    expect(loadConfig({}, "demo").events).toBeUndefined();
    expect(loadConfig({ EVENTS_URL: " ", EVENTS_SECRET: "" }, "demo").events).toBeUndefined();
  });

  it("reads an https URL, or plain http to this machine, and the secret's key bytes", () => {
    const events = loadConfig(
      { EVENTS_URL: "https://erp.example.com/hooks", EVENTS_SECRET: SECRET },
      "demo",
    ).events;
    expect(events?.url).toBe("https://erp.example.com/hooks");
    expect(events?.key.equals(Buffer.from(SECRET_BYTES, "base64"))).toBe(true);
    for (const url of ["http://127.0.0.1:9000/e", "http://localhost/e"]) {
      expect(loadConfig({ EVENTS_URL: url, EVENTS_SECRET: SECRET }, "demo").events?.url).toBe(url);
    }
  });

  it("stops the start when one is set without the other", () => {
    expect(problemsOf({ EVENTS_URL: "https://erp.example.com/hooks" })).toEqual([
      expect.stringMatching(/^EVENTS_SECRET: required with EVENTS_URL/),
    ]);
    expect(problemsOf({ EVENTS_SECRET: SECRET })).toEqual([
      expect.stringMatching(/^EVENTS_URL: required with EVENTS_SECRET/),
    ]);
  });

  it("refuses plain http elsewhere and a secret not in the whsec_ form, never quoting the secret", () => {
    const badSecrets = [
      SECRET_BYTES,
      "whsec_not base64!",
      "whsec_c2hvcnQ=",
      `whsec_${"A".repeat(100)}`,
    ];
    for (const secret of badSecrets) {
      const problems = problemsOf({
        EVENTS_URL: "https://erp.example.com/e",
        EVENTS_SECRET: secret,
      });
      expect(problems).toEqual([expect.stringMatching(/^EVENTS_SECRET: must be whsec_/)]);
      expect(problems.join(" ")).not.toContain(secret);
    }
    expect(problemsOf({ EVENTS_URL: "http://erp.example.com/e", EVENTS_SECRET: SECRET })).toEqual([
      expect.stringMatching(/^EVENTS_URL: must start with https:\/\//),
    ]);
  });
});
