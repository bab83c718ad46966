/**
 * Random tokens from a pool: one `randomFillSync` of POOL_BYTES serves many tokens, as Node
 * does for `randomUUID`. `randomBytes(8)` per token asked the system's generator each time
 * (about 1 µs, a tenth of a payout move's arguments): claim ids and rate-limit members are
 * made on every Confirm. The bytes are the same cryptographic randomness, each used once.
 */
import { randomFillSync } from "node:crypto";

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/** `bytes` random bytes (at most POOL_BYTES) as lowercase hex, as randomBytes(bytes).toString("hex"). */
export function randomHex(bytes: number): string {
  if (bytes > POOL_BYTES) throw new RangeError(`randomHex: at most ${POOL_BYTES} bytes`);
  if (offset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString("hex", offset, offset + bytes);
  offset += bytes;
  return hex;
}
