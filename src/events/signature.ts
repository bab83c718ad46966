/**
 * Standard Webhooks signing: `webhook-signature` is `v1,` and the base64 HMAC-SHA256, under
 * the secret's key bytes, of `{webhook-id}.{webhook-timestamp}.{body}` (the timestamp in
 * whole seconds, as sent). Receivers check it with any Standard Webhooks library; our tests
 * check it with the `standardwebhooks` package, so the signing here is not its own judge.
 */
import { createHmac } from "node:crypto";

/** The three headers of one try of one event. `timestampSeconds`: when this try is sent. */
export function signedHeaders(
  key: Buffer,
  eventId: string,
  timestampSeconds: number,
  body: string,
): Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string> {
  const signature = createHmac("sha256", key)
    .update(`${eventId}.${timestampSeconds}.${body}`)
    .digest("base64");
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": `v1,${signature}`,
  };
}
