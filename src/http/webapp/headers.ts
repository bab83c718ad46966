/**
 * The headers every Mini App answer carries. The page runs only scripts and styles of its
 * own origin (no inline script), may be framed only by Telegram's web clients (the phone
 * and desktop apps open it in their own web view), and is never sniffed or cached by the
 * browser when it carries someone's payouts.
 */
export const FRAME_ANCESTORS = "https://web.telegram.org https://*.telegram.org";

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  `frame-ancestors ${FRAME_ANCESTORS}`,
].join("; ");

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};
