/**
 * Telegram refuses a message over 4,096 characters. Ours are short, but some carry text from
 * users and the API (notes, names, lists), so every message is clamped before it leaves.
 * The cut never falls inside a tag or an entity, and tags left open are closed, so the
 * result is still valid HTML for Telegram's parser. Counting the raw HTML (which is never
 * shorter than the text Telegram counts) keeps the limit with room to spare.
 */
export const TELEGRAM_MESSAGE_LIMIT = 4096;

const ELLIPSIS = "…";

/** `html` unchanged when it fits in `limit` characters, else cut to fit, tags closed. */
export function clampHtml(html: string, limit = TELEGRAM_MESSAGE_LIMIT): string {
  if (html.length <= limit) return html;
  // Room for the ellipsis and the closing tags (at most a few short ones).
  let cut = html.slice(0, limit - ELLIPSIS.length - 64);
  const lastOpen = cut.lastIndexOf("<");
  if (lastOpen > cut.lastIndexOf(">")) cut = cut.slice(0, lastOpen);
  const lastAmp = cut.lastIndexOf("&");
  if (lastAmp > cut.lastIndexOf(";")) cut = cut.slice(0, lastAmp);
  const open: string[] = [];
  for (const match of cut.matchAll(/<(\/?)([a-z-]+)[^>]*>/gi)) {
    const name = (match[2] ?? "").toLowerCase();
    if (match[1] === "/") {
      const index = open.lastIndexOf(name);
      if (index !== -1) open.splice(index, 1);
    } else {
      open.push(name);
    }
  }
  return `${cut}${ELLIPSIS}${open
    .reverse()
    .map((name) => `</${name}>`)
    .join("")}`;
}
