import { describe, expect, it } from "vitest";
import { parseServerFacts, planDurability } from "../../../../src/store/redis/durability.js";

/** INFO text as Redis writes it: sections, CRLF line ends. */
function info(lines: string[]): string {
  return ["# Server", ...lines].join("\r\n");
}

describe("durable write planning", () => {
  it("reads the version, role, online replicas and AOF settings from INFO", () => {
    const facts = parseServerFacts(
      info([
        "redis_version:7.2.4",
        "role:master",
        "connected_slaves:2",
        "slave0:ip=10.0.0.2,port=6379,state=online,offset=42,lag=0",
        "slave1:ip=10.0.0.3,port=6379,state=wait_bgsave,offset=0,lag=0",
        "aof_enabled:1",
        "appendfsync:everysec",
      ]),
    );
    expect(facts).toEqual({
      version: [7, 2, 4],
      role: "master",
      onlineReplicas: 1,
      aofEnabled: true,
      appendfsync: "everysec",
    });
  });

  it("waits for a replica when one is online", () => {
    const plan = planDurability({
      version: [7, 0, 15],
      role: "master",
      onlineReplicas: 1,
      aofEnabled: false,
      appendfsync: "everysec",
    });
    expect(plan.steps).toEqual(["WAIT"]);
    expect(plan.unprotected).toBe(false);
  });

  it("waits for the local AOF with WAITAOF on Redis 7.2 and later, and for a replica too", () => {
    const plan = planDurability({
      version: [7, 2, 0],
      role: "master",
      onlineReplicas: 1,
      aofEnabled: true,
      appendfsync: "everysec",
    });
    expect(plan.steps).toEqual(["WAIT", "WAITAOF"]);
  });

  it("needs no wait with appendfsync always, and cannot use WAITAOF before 7.2", () => {
    const always = planDurability({
      version: [7, 0, 15],
      role: "master",
      onlineReplicas: 0,
      aofEnabled: true,
      appendfsync: "always",
    });
    expect(always).toMatchObject({ steps: [], unprotected: false });
    const old = planDurability({
      version: [7, 0, 15],
      role: "master",
      onlineReplicas: 0,
      aofEnabled: true,
      appendfsync: "everysec",
    });
    expect(old).toMatchObject({ steps: [], unprotected: true });
  });

  it("says a server with no replica and no AOF cannot make a write durable", () => {
    const plan = planDurability({
      version: [7, 4, 0],
      role: "master",
      onlineReplicas: 0,
      aofEnabled: false,
      appendfsync: "everysec",
    });
    expect(plan).toMatchObject({ steps: [], unprotected: true });
    expect(plan.summary).toContain("no replica");
  });

  it("once it waited for a replica, calls a server with none online one that lost it", () => {
    const facts = {
      version: [7, 2, 4],
      role: "master",
      onlineReplicas: 0,
      aofEnabled: true,
      appendfsync: "everysec",
    };
    const lost = planDurability(facts, { expectReplica: true });
    expect(lost).toMatchObject({ replicaLost: true, unprotected: true });
    expect(lost.summary).toContain("claims refused");
    // Never having waited for one, the local AOF is all there is; the same with "local".
    expect(planDurability(facts)).toMatchObject({ steps: ["WAITAOF"], replicaLost: false });
    expect(planDurability(facts, { mode: "local", expectReplica: true })).toMatchObject({
      steps: ["WAITAOF"],
      replicaLost: false,
    });
  });

  it("waits for no replica in mode local, online or not", () => {
    const plan = planDurability(
      {
        version: [7, 2, 4],
        role: "master",
        onlineReplicas: 2,
        aofEnabled: true,
        appendfsync: "everysec",
      },
      { mode: "local" },
    );
    expect(plan).toMatchObject({ steps: ["WAITAOF"], replicaLost: false, unprotected: false });
  });
});
