/**
 * One of the two processes of benchmark 3: a PaymentClient whose RedisRateLimiter shares
 * its key with the other process, calling GET /payments/{id} on `concurrency` loops as
 * fast as the limiter lets it, from `go` until the run's end. A 429 is not retried
 * (one attempt per call), so every one the API sends is counted here.
 *
 * Configuration: BENCH_RL_CONFIG (JSON, RateLimitWorkerConfigSchema). Messages: ready, go,
 * result.
 */
import { PaymentClient } from "../src/payments/client.js";
import { PaymentApiError } from "../src/payments/errors.js";
import { RedisRateLimiter } from "../src/store/redis/rate-limiter.js";
import { failChild, tellParent } from "./child-io.js";
import { CommandSchema, RateLimitWorkerConfigSchema, type WorkerResult } from "./messages.js";
import { connectRedis } from "./setup.js";

function waitForGo(): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (raw: unknown) => {
      const command = CommandSchema.safeParse(raw);
      if (command.data?.type !== "go") return;
      process.off("message", onMessage);
      resolve(command.data.startAtMs);
    };
    process.on("message", onMessage);
  });
}

async function main(): Promise<void> {
  const config = RateLimitWorkerConfigSchema.parse(
    JSON.parse(process.env.BENCH_RL_CONFIG ?? "null"),
  );
  const redis = await connectRedis(config.redisUrl);
  const limiter = new RedisRateLimiter({
    redis,
    key: config.limiterKey,
    limit: config.limit,
    windowMs: config.windowMs,
  });
  const client = new PaymentClient({
    baseUrl: config.url,
    apiKey: config.apiKey,
    limiter,
    retry: { maxAttempts: 1 },
    // Waits for a whole window are expected here; the end of the run cuts them short.
    maxRateLimitWaitMs: config.windowMs + config.durationMs + 10_000,
  });
  process.on("disconnect", () => process.exit(1));
  tellParent({ type: "ready" });
  const startAtMs = await waitForGo();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAtMs - Date.now())));
  const stopAtMs = startAtMs + config.durationMs;
  // close() ends the limiter waits at once: the loops then see the run is over.
  const stopTimer = setTimeout(() => void client.close(), stopAtMs - Date.now());
  const result: WorkerResult = {
    type: "result",
    ...{ ok: 0, rejected429: 0, otherErrors: 0, firstOtherError: null },
    ...{ firstOkAtMs: null, lastOkAtMs: null },
  };
  let calls = 0;
  const loop = async () => {
    while (Date.now() < stopAtMs && calls < config.maxCalls) {
      calls += 1;
      try {
        await client.getPayment(config.paymentId);
        const atMs = Date.now();
        result.ok += 1;
        result.firstOkAtMs ??= atMs;
        result.lastOkAtMs = atMs;
      } catch (error) {
        if (error instanceof PaymentApiError && error.statusCode === 429) result.rejected429 += 1;
        else if (Date.now() < stopAtMs) {
          result.otherErrors += 1;
          result.firstOtherError ??= error instanceof Error ? error.message : String(error);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: config.concurrency }, loop));
  clearTimeout(stopTimer);
  await client.close();
  redis.disconnect();
  process.send?.(result, () => process.exit(0));
}

main().catch(failChild);
