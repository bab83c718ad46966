/**
 * A Payment API sandbox in its own process, so a client benchmark's process holds only
 * the client. BENCH_SANDBOX_SIGN=1 signs every answer (X-Sig), 0 does not. No rate
 * limit; payments stay pending. Messages: ready (url, key, public key), stop.
 */
import { startSandbox } from "../src/sandbox/index.js";
import { failChild, tellParent } from "./child-io.js";
import { CommandSchema } from "./messages.js";

async function main(): Promise<void> {
  const sandbox = await startSandbox({
    rateLimitPerMinute: 0,
    settleDelayMs: 86_400_000,
    signResponses: process.env.BENCH_SANDBOX_SIGN === "1",
  });
  const stop = async () => {
    await sandbox.close().catch(() => undefined);
    process.exit(0);
  };
  process.on("message", (raw) => {
    if (CommandSchema.safeParse(raw).data?.type === "stop") void stop();
  });
  process.on("disconnect", () => void stop());
  tellParent({
    type: "ready",
    url: sandbox.url,
    apiKey: sandbox.apiKey,
    publicKeyPem: sandbox.publicKeyPem,
  });
}

main().catch(failChild);
