/**
 * The rules every French text follows (and the English where they apply): French
 * typography, one apostrophe, counts chosen by rule rather than "(s)", and no inserted
 * name or zone after a word that would have to elide before it ("de Aïcha").
 */
import { describe, expect, it } from "vitest";
import en from "../../locales/en.json" with { type: "json" };
import fr from "../../locales/fr.json" with { type: "json" };
import { type MessageKey, stripHtml, translator } from "../../src/i18n.js";

const CATALOGS = { en, fr } as const;
const KEYS = Object.keys(en) as MessageKey[];
const PLURAL = /\{(\w+), plural,((?:\s*\w+ \{[^{}]*\})+)\s*\}/g;

/** The text a reader sees around the values: markup and code samples left out. */
function prose(template: string): string {
  return template
    .replace(/<code>[^<]*<\/code>/g, "x")
    .replace(/<[^>]+>/g, "")
    .replace(PLURAL, "x");
}

/** The parameters a template's plural selections count with. */
function countedParams(template: string): string[] {
  return [...template.matchAll(PLURAL)].map((match) => match[1] ?? "");
}

const PLURAL_KEYS = KEYS.filter(
  (key) => countedParams(en[key]).length > 0 || countedParams(fr[key]).length > 0,
);

describe("French typography", () => {
  it.each(KEYS)("puts a no-break space before : ; ? ! in fr %s", (key) => {
    const text = prose(fr[key]);
    const wrong = [...text.matchAll(/(^|[^\u202F\u00A0])([:;?!])(?=\s|$)/g)].map(
      (match) => `${match[1]}${match[2]}`,
    );
    expect(wrong, text).toEqual([]);
  });

  it.each(KEYS)("puts no-break spaces inside « » in fr %s", (key) => {
    const text = prose(fr[key]);
    expect(text).not.toMatch(/«(?![\u202F\u00A0])/);
    expect(text).not.toMatch(/(?<![\u202F\u00A0])»/);
  });

  it("uses one apostrophe in French, the typographic one (’)", () => {
    const straight = KEYS.filter((key) => prose(fr[key]).includes("'"));
    expect(straight).toEqual([]);
    expect(KEYS.filter((key) => fr[key].includes("\u2019")).length).toBeGreaterThan(80);
  });

  it("uses one apostrophe in English, the straight one (')", () => {
    expect(KEYS.filter((key) => en[key].includes("\u2019"))).toEqual([]);
  });

  it("keeps a French amount and FCFA together, and groups digits without a breaking space", () => {
    const t = translator("fr");
    expect(t("notice.paid", { amount: "x", name: "y" })).toContain("Payé");
    const shown = stripHtml(t("batch.preview_pay", { count: 1200, total: "z" }));
    expect(shown).toContain("1\u202F200 lignes");
  });
});

describe("counts", () => {
  it.each(["en", "fr"] as const)("never writes (s) or a fixed plural in %s", (locale) => {
    const catalog = CATALOGS[locale];
    const wrong = KEYS.filter((key) => /\((s|es|ies|e|e\)s)\)/.test(catalog[key]));
    expect(wrong).toEqual([]);
  });

  it.each(["en", "fr"] as const)(
    "puts no noun after a bare count in %s: the word is chosen by rule",
    (locale) => {
      const catalog = CATALOGS[locale];
      // Abbreviated units do not vary ("5 min", "2 Mo"), nor do "per" and the English
      // participle "waiting"; any other word does.
      const units = new Set(["min", "h", "Mo", "MB", "per", "par", "waiting"]);
      const wrong = KEYS.flatMap((key) =>
        [...prose(catalog[key]).matchAll(/\{(count|rows|hours|max|rate)\} (\p{L}+)/gu)]
          .filter((match) => !units.has(match[2] ?? ""))
          .map((match) => `${key}: ${match[0]}`),
      );
      expect(wrong).toEqual([]);
    },
  );

  it("has counted keys to check, and French counts by rule wherever English does", () => {
    expect(PLURAL_KEYS.length).toBeGreaterThan(15);
    for (const key of PLURAL_KEYS) {
      expect(countedParams(fr[key]).length, key).toBeGreaterThan(0);
    }
  });

  it.each(PLURAL_KEYS)("reads 0, 1 and 2 by each language's rule in %s", (key) => {
    const render = (locale: "en" | "fr", count: number) => {
      const names = new Set([...countedParams(en[key]), ...countedParams(fr[key])]);
      const params = Object.fromEntries([...names].map((name) => [name, count]));
      const text = stripHtml(translator(locale)(key, params));
      expect(text, `${locale} ${key} ${count}`).not.toMatch(/plural|#|\{\w+,/);
      expect(text).toContain(String(count));
      // The words around the number, to compare forms.
      return text.replace(/\d/g, "N");
    };
    // French: 0 and 1 are singular, 2 is plural (and differs).
    expect(render("fr", 0)).toBe(render("fr", 1));
    expect(render("fr", 2)).not.toBe(render("fr", 1));
    // English: only 1 is singular; 0 reads like 2.
    expect(render("en", 0)).toBe(render("en", 2));
  });

  it("gives the forms a reader expects", () => {
    const fr_ = translator("fr");
    const en_ = translator("en");
    const rows = (t: typeof fr_, count: number) =>
      stripHtml(t("batch.list_line", { id: "b", time: "t", rows: count, state: "s" }));
    expect(rows(fr_, 0)).toContain("0 ligne ·");
    expect(rows(fr_, 1)).toContain("1 ligne ·");
    expect(rows(fr_, 2)).toContain("2 lignes ·");
    expect(rows(en_, 0)).toContain("0 rows ·");
    expect(rows(en_, 1)).toContain("1 row ·");
    expect(rows(en_, 2)).toContain("2 rows ·");
    expect(stripHtml(fr_("unknown.title", { count: 1 }))).toBe("⚠️ 1 paiement au résultat inconnu");
  });
});

/** Placeholders whose values start with a digit (times, amounts, counts, ids): no elision. */
const DIGIT_FIRST = new Set([
  "time",
  "when",
  "amount",
  "total",
  "cap",
  "left",
  "used",
  "count",
  "rows",
  "row",
  "max",
  "page",
  "pages",
  "threshold",
  "minutes",
  "hours",
  "fees",
  "fee",
  "limit",
  "from",
  "to",
  "value",
  "phone",
  "day",
]);

describe("elision before inserted values", () => {
  it.each(KEYS)("never puts a name, zone or word value after de/que/le/la in fr %s", (key) => {
    const text = fr[key].replace(/<[^>]+>/g, "");
    const wrong = [
      ...text.matchAll(/(?:^|[\s’(])(de|que|le|la|ne|je|se|ce|jusque|lorsque|puisque) \{(\w+)/gi),
    ]
      .filter((match) => !DIGIT_FIRST.has(match[2] ?? ""))
      .map((match) => match[0].trim());
    expect(wrong).toEqual([]);
  });

  it("says who a collection was asked of without eliding before the name", () => {
    const t = translator("fr");
    const line = t.plain("history.collection", { amount: "5 000 FCFA", name: "Aïcha", phone: "p" });
    expect(line).not.toMatch(/\bde Aïcha|auprès de A/);
    expect(line).toContain("Aïcha");
  });
});
