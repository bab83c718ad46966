import { describe, expect, it } from "vitest";
import { metricsConfig } from "../../../src/config/metrics.js";

describe("metricsConfig", () => {
  it("is off by default", () => {
    const problems: string[] = [];
    expect(metricsConfig({}, problems)).toEqual({ serve: undefined });
    expect(metricsConfig({ METRICS_ENABLED: "false" }, problems)).toEqual({ serve: undefined });
    expect(problems).toEqual([]);
  });

  it("serves on the main server with METRICS_ENABLED=true", () => {
    const problems: string[] = [];
    expect(metricsConfig({ METRICS_ENABLED: "true" }, problems)).toEqual({ serve: { on: "main" } });
    expect(problems).toEqual([]);
  });

  it("serves on a server of its own, on loopback unless METRICS_HOST says otherwise", () => {
    const problems: string[] = [];
    expect(metricsConfig({ METRICS_PORT: "9464" }, problems)).toEqual({
      serve: { on: "own", host: "127.0.0.1", port: 9464 },
    });
    expect(
      metricsConfig(
        { METRICS_ENABLED: "true", METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0" },
        problems,
      ),
    ).toEqual({ serve: { on: "own", host: "0.0.0.0", port: 9464 } });
    expect(problems).toEqual([]);
  });

  it("names every bad value", () => {
    const problems: string[] = [];
    expect(metricsConfig({ METRICS_ENABLED: "yes", METRICS_PORT: "70000" }, problems)).toEqual({
      serve: undefined,
    });
    expect(problems).toEqual([
      expect.stringMatching(/^METRICS_ENABLED: must be "true" or "false"/),
      expect.stringMatching(/^METRICS_PORT: must be a whole number from 0 to 65535/),
    ]);
  });
});
