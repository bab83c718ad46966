/**
 * How a PIN is kept: argon2id (RFC 9106) from `@node-rs/argon2`, a maintained Rust
 * binding shipped as prebuilt binaries on npm. The PHC string it returns carries its own
 * random salt and parameters, so a stored hash stays checkable if the defaults change.
 * Six digits are a small space: the slow hash only raises the cost of an offline guess;
 * what protects a PIN online is the lock after five wrong tries.
 * The binding is loaded at the first PIN (`import()`), not at start: most runs never hash
 * one, and it costs about 10 MB of RSS loaded (bench `footprint`).
 */

export interface PinHasher {
  hash(pin: string): Promise<string>;
  /** True when `pin` matches `stored`; false for a mismatch or a hash it cannot read. */
  verify(stored: string, pin: string): Promise<boolean>;
}

/** Algorithm.Argon2id in @node-rs/argon2 (a const enum there, so written out here). */
const ARGON2ID = 2;

/**
 * argon2id with OWASP's minimum (19 MiB, 2 passes, 1 lane): about 20 ms a PIN on this
 * project's machine, once per try.
 */
export const argon2Hasher: PinHasher = {
  hash: async (pin) => {
    const { hash } = await import("@node-rs/argon2");
    return hash(pin, { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 });
  },
  verify: async (stored, pin) => {
    const { verify } = await import("@node-rs/argon2");
    try {
      return await verify(stored, pin);
    } catch {
      return false;
    }
  },
};
