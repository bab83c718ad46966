/**
 * Redis command latency as the bot sees it: every command a connection sends (alone, in a
 * pipeline or a MULTI, EVALSHA for a script) passes through its `sendCommand`, so timing
 * there covers them all with one wrapper instead of one per store. The cost is two clock
 * reads and one promise callback per command (measured in bench/, `pay-roundtrip`).
 */
import { Cluster, type Command } from "ioredis";
import type { RedisClient } from "../store/redis/connection.js";
import type { Metrics } from "./metrics.js";

/** Times every command `redis` sends from now on into `metrics` (nothing when it is off). */
export function timeRedisCommands(redis: RedisClient, metrics: Metrics): void {
  if (!metrics.enabled) return;
  const time = (command: Command) => {
    const startedMs = performance.now();
    const done = () => metrics.redisCommand(command.name, (performance.now() - startedMs) / 1000);
    command.promise.then(done, done);
  };
  if (redis instanceof Cluster) {
    // A cluster's command passes here once, whichever node (or redirection) answers it.
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = (command, stream, node) => {
      time(command);
      return send(command, stream, node);
    };
    return;
  }
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, stream) => {
    time(command);
    return send(command, stream);
  };
}
