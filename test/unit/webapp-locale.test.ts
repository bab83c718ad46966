/**
 * The Mini App's texts (locales/webapp.*.json) follow the bot's rules: the same keys and
 * placeholders in both languages, French typography (U+202F before : ; ? ! and inside « »,
 * the ’ apostrophe), counts chosen by ICU plural rules, and no HTML (the page sets text).
 */
import { describe, expect, it } from "vitest";
import en from "../../locales/webapp.en.json" with { type: "json" };
import fr from "../../locales/webapp.fr.json" with { type: "json" };

type Key = keyof typeof en;
const KEYS = Object.keys(en) as Key[];
const PLURAL = /\{(\w+), plural,((?:\s*\w+ \{[^{}]*\})+)\s*\}/g;

function placeholders(template: string): string[] {
  const counted = [...template.matchAll(PLURAL)].map((match) => `${match[1]}#`);
  const plain = [...template.replace(PLURAL, "").matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "");
  return [...counted, ...plain].sort();
}

describe("the Mini App's texts", () => {
  it("have the same keys in English and French", () => {
    expect(Object.keys(fr).sort()).toEqual(Object.keys(en).sort());
  });

  it.each(KEYS)("use the same placeholders in both languages for %s", (key) => {
    expect(placeholders(fr[key])).toEqual(placeholders(en[key]));
  });

  it.each(KEYS)("put a narrow no-break space before : ; ? ! in fr %s", (key) => {
    const text = fr[key].replace(PLURAL, "x");
    const wrong = [...text.matchAll(/(^|[^\u202F\u00A0])([:;?!])(?=\s|$)/g)];
    expect(wrong.map((match) => match[0])).toEqual([]);
  });

  it("use the typographic apostrophe in French and the straight one in English", () => {
    expect(KEYS.filter((key) => fr[key].includes("'"))).toEqual([]);
    expect(KEYS.filter((key) => en[key].includes("\u2019"))).toEqual([]);
    expect(KEYS.filter((key) => fr[key].includes("\u2019")).length).toBeGreaterThan(10);
  });

  it("choose counts by rule, never with (s)", () => {
    for (const key of KEYS) {
      expect(en[key]).not.toMatch(/\(s\)/);
      expect(fr[key]).not.toMatch(/\(s\)/);
    }
    expect(fr["history.count"]).toBe("{count, plural, one {# paiement} other {# paiements}}");
  });

  it("carry no HTML: the page sets them as text", () => {
    for (const key of KEYS) expect(`${en[key]}${fr[key]}`).not.toMatch(/<\/?[a-z]/i);
  });
});
