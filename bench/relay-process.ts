/**
 * TCP relays (src/dev/tcp-relay.ts) in a process of their own, so the delays they add do
 * not wait on the harness's busy event loop: a relay set to 1 ms adds about 1 ms. The
 * parent adds relays, sets their delays and reads their counters over IPC (messages.ts:
 * relay, delays, counters, stop).
 */
import { TcpRelay } from "../src/dev/tcp-relay.js";
import { failChild, tellParent } from "./child-io.js";
import { CommandSchema } from "./messages.js";

async function main(): Promise<void> {
  const relays = new Map<string, TcpRelay>();
  const stop = async () => {
    await Promise.all([...relays.values()].map((relay) => relay.close()));
    process.exit(0);
  };
  process.on("message", (raw) => {
    const command = CommandSchema.safeParse(raw);
    if (!command.success) return;
    const message = command.data;
    if (message.type === "relay") {
      const { name, targetHost, targetPort } = message;
      TcpRelay.start({ targetHost, targetPort }).then((relay) => {
        relays.set(name, relay);
        tellParent({ type: "relay", name, port: relay.port });
      }, failChild);
    }
    if (message.type === "delays") {
      for (const name of message.names)
        relays.get(name)?.setDelays(message.upstreamMs, message.downstreamMs);
      tellParent({ type: "delays-set" });
    }
    if (message.type === "counters") {
      const counters = Object.fromEntries(
        [...relays].map(([name, relay]) => [name, relay.counters]),
      );
      tellParent({ type: "counters", relays: counters });
    }
    if (message.type === "stop") void stop();
  });
  process.on("disconnect", () => void stop());
  tellParent({ type: "ready" });
}

main().catch(failChild);
