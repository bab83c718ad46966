/**
 * The sandbox's RSA key pair, which signs responses and callbacks. Generating a 2048-bit
 * key takes ~100 ms, so sandboxes in one process share one unless given their own.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from "node:crypto";

export interface SandboxKeys {
  privateKey: KeyObject;
  publicKeyPem: string;
}

let shared: SandboxKeys | undefined;

function keysOf(privateKey: KeyObject): SandboxKeys {
  const publicKeyPem = createPublicKey(privateKey).export({ type: "spki", format: "pem" });
  return { privateKey, publicKeyPem: publicKeyPem.toString() };
}

/** The keys from `privateKeyPem`, or the process-wide pair (generated on first use). */
export function sandboxKeys(privateKeyPem?: string): SandboxKeys {
  if (privateKeyPem !== undefined) return keysOf(createPrivateKey(privateKeyPem));
  shared ??= keysOf(generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey);
  return shared;
}
