/**
 * Watches every command the test Redis runs (MONITOR), on a plain socket of its own.
 * ioredis's `monitor()` can take a command's line for the reply to MONITOR itself when the
 * server is busy ("Command queue state error"); here nothing is read as a command until
 * Redis has said +OK, and each line after it is one command.
 */
import { connect, type Socket } from "node:net";
import { testRedisUrl } from "./redis.js";

export interface RedisMonitor {
  /** Stops watching; idempotent. */
  close(): void;
}

/** The arguments of one MONITOR line: `+1700000000.1 [0 127.0.0.1:1] "zadd" "k" "1"`. */
export function monitorArgs(line: string): string[] {
  const args: string[] = [];
  const quoted = /"((?:[^"\\]|\\.)*)"/g;
  for (const match of line.matchAll(quoted)) args.push(unescapeMonitored(match[1] ?? ""));
  return args;
}

function unescapeMonitored(text: string): string {
  return text.replace(/\\(x[0-9a-fA-F]{2}|.)/g, (_, code: string) => {
    if (code.startsWith("x") && code.length === 3)
      return String.fromCharCode(parseInt(code.slice(1), 16));
    return { n: "\n", r: "\r", t: "\t", a: "\x07", b: "\b" }[code] ?? code;
  });
}

/** Who sent a MONITOR line: `127.0.0.1:51234`, or `lua` for a command a script ran. */
export function monitorClient(line: string): string {
  return /^\S+ \[\d+ ([^\]]+)\]/.exec(line)?.[1] ?? "";
}

/**
 * Calls `onCommand` with the arguments of every command Redis runs, and who sent it
 * (`monitorClient`), from when it resolves.
 */
export async function monitorRedis(
  onCommand: (args: string[], client: string) => void,
): Promise<RedisMonitor> {
  const url = new URL(testRedisUrl());
  const socket: Socket = connect(Number(url.port || 6379), url.hostname);
  let buffered = "";
  let ready = false;
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.on("data", (chunk: Buffer) => {
      // MONITOR escapes every byte that is not printable ASCII (\\xHH).
      buffered += chunk.toString("latin1");
      let end = buffered.indexOf("\r\n");
      while (end >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (!ready) {
          if (line !== "+OK") reject(new Error(`MONITOR refused: ${line}`));
          ready = true;
          resolve();
        } else onCommand(monitorArgs(line), monitorClient(line));
        end = buffered.indexOf("\r\n");
      }
    });
    // The test Redis has no password (see global-setup.ts).
    socket.once("connect", () => socket.write("MONITOR\r\n"));
  });
  return {
    close: () => socket.destroy(),
  };
}
