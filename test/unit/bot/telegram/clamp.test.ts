import { describe, expect, it } from "vitest";
import { clampHtml, TELEGRAM_MESSAGE_LIMIT } from "../../../../src/bot/telegram/clamp.js";

describe("clampHtml", () => {
  it("leaves a message that fits as it is", () => {
    const html = "<b>Paid</b>: 5,000 FCFA";
    expect(clampHtml(html)).toBe(html);
  });

  it("cuts a long message to Telegram's limit and closes the tags left open", () => {
    const html = `<b>Note</b>: <i>${"x".repeat(10_000)}</i>`;
    const clamped = clampHtml(html);
    expect(clamped.length).toBeLessThanOrEqual(TELEGRAM_MESSAGE_LIMIT);
    expect(clamped.endsWith("…</i>")).toBe(true);
    expect(clamped.startsWith("<b>Note</b>: <i>xxx")).toBe(true);
  });

  it("never cuts inside an entity or a tag", () => {
    const entities = "&amp;".repeat(2_000);
    const clamped = clampHtml(entities, 100);
    expect(clamped).toMatch(/^(&amp;)+…$/);
    const tags = `${"a".repeat(30)}<code>${"b".repeat(200)}</code>`;
    expect(clampHtml(tags, 100)).toMatch(/^a{30}(<code>b*…<\/code>|…)$/);
  });
});
