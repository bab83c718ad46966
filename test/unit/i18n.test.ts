import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import en from "../../locales/en.json" with { type: "json" };
import fr from "../../locales/fr.json" with { type: "json" };
import { parseTelegramHtml } from "../../src/dev/telegram-emulator/html.js";
import { allCatalogs, escapeHtml, html, stripHtml, translator } from "../../src/i18n.js";
import { isLocale, localeFromLanguageCode } from "../../src/model/locale.js";

const CATALOGS: Record<string, Record<string, string>> = { en, fr };
/** The tags our templates may use (a subset of what Telegram's HTML parse mode allows). */
const ALLOWED_TAGS = new Set(["b", "i", "u", "s", "code", "pre", "a", "blockquote"]);

/** The parameters a template takes: `{name}` and the counts of `{name, plural, …}`. */
function placeholders(template: string): string[] {
  return [...template.matchAll(/\{(\w+)(?:\}|, plural,)/g)].map((match) => match[1] ?? "").sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

const SOURCES = sourceFiles("src").map((path) => ({ path, text: readFileSync(path, "utf8") }));
const SECTIONS = new Set(Object.keys(en).map((key) => key.split(".")[0]));

/** String literals in src that look like message keys (`"error.phone.empty"`). */
function keyLiterals(): Array<{ path: string; key: string }> {
  return SOURCES.flatMap(({ path, text }) =>
    [...text.matchAll(/["']([a-z_]+(?:\.[a-z0-9_]+)+)["']/g)]
      .map((match) => match[1] ?? "")
      .filter((key) => SECTIONS.has(key.split(".")[0]))
      .map((key) => ({ path, key })),
  );
}

/** Prefixes of keys built at run time (`t(\`role.${role}\`)`). */
function keyPrefixes(): string[] {
  return SOURCES.flatMap(({ text }) =>
    [...text.matchAll(/`([a-z_]+\.)\$\{/g)].map((match) => match[1] ?? ""),
  );
}

describe("the locale catalogs", () => {
  it("have exactly the same keys in English and French", () => {
    expect(Object.keys(fr).sort()).toEqual(Object.keys(en).sort());
  });

  it.each(Object.keys(en))("use the same placeholders in both languages for %s", (key) => {
    expect(placeholders(fr[key as keyof typeof fr])).toEqual(
      placeholders(en[key as keyof typeof en]),
    );
  });

  it.each(
    Object.entries(CATALOGS).flatMap(([locale, catalog]) =>
      Object.entries(catalog).map(([key, template]) => [locale, key, template] as const),
    ),
  )("%s %s is valid Telegram HTML with allowed tags only", (_locale, key, template) => {
    const rendered = template.replace(/\{(\w+)\}/g, "x");
    expect(() => parseTelegramHtml(rendered), key).not.toThrow();
    const tags = [...rendered.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((match) => match[1] ?? "");
    for (const tag of tags) expect(ALLOWED_TAGS.has(tag), `<${tag}> in ${key}`).toBe(true);
  });

  it("has every key the source uses", () => {
    const missing = keyLiterals().filter(({ key }) => !(key in en));
    expect(missing).toEqual([]);
    expect(keyLiterals().length).toBeGreaterThan(50);
  });

  it("has keys for every role and menu entry built at run time", () => {
    for (const role of ["admin", "approver", "payer", "viewer"])
      expect(en).toHaveProperty([`role.${role}`]);
    for (const command of [
      "pay",
      "collect",
      "whois",
      "status",
      "history",
      "availability",
      "cancel",
      "lang",
      "help",
    ]) {
      expect(en).toHaveProperty([`menu.${command}`]);
    }
  });

  it("has no key the source never uses", () => {
    const literals = new Set(keyLiterals().map(({ key }) => key));
    const prefixes = keyPrefixes();
    const unused = Object.keys(en).filter(
      (key) => !literals.has(key) && !prefixes.some((prefix) => key.startsWith(prefix)),
    );
    expect(unused).toEqual([]);
  });

  it("is translated: French differs from English except for texts made only of values", () => {
    const same = Object.keys(en).filter(
      (key) => en[key as keyof typeof en] === fr[key as keyof typeof fr],
    );
    expect(same.sort()).toEqual([
      "audit.actor",
      "availability.down",
      "batch.progress_line",
      "history.line",
      "recipients.list_line",
      "whois.found",
    ]);
  });

  it("writes French with a space before : ; ? and !", () => {
    const wrong = Object.entries(fr).filter(([, template]) =>
      /[\p{L}\p{N})}»][:;?!](\s|$)/u.test(template.replace(/<[^>]+>/g, "")),
    );
    expect(wrong).toEqual([]);
  });
});

describe("the wording", () => {
  it("spells cancelled one way in English, whoever cancelled", () => {
    const english = Object.values(en).join("\n");
    expect(english).toMatch(/cancelled/i);
    expect(english).not.toMatch(/canceled/i);
  });

  it.each(["en", "fr"])("starts every status word with a capital (%s)", (locale) => {
    const catalog = CATALOGS[locale] ?? {};
    const statuses = Object.entries(catalog).filter(
      ([key]) =>
        key.startsWith("state.") ||
        key.startsWith("payment_status.") ||
        key === "availability.up" ||
        key === "availability.unlisted",
    );
    expect(statuses.length).toBeGreaterThan(15);
    for (const [key, text] of statuses) {
      // After the emoji and the markup: the word itself.
      const word = stripHtml(text).replace(/^[^\p{L}]+/u, "");
      expect(word[0], key).toBe(word[0]?.toUpperCase());
    }
  });
});

describe("translator", () => {
  it("escapes parameters and leaves html() values as they are", () => {
    const t = translator("en");
    expect(t("payout.to", { name: '<b>Eve</b> & "Bob"' })).toBe(
      "To: <b>&lt;b&gt;Eve&lt;/b&gt; &amp; &quot;Bob&quot;</b>",
    );
    expect(
      t("availability.line", {
        operator: "MTN",
        disbursement: html("<i>up</i>"),
        collection: "<x>",
      }),
    ).toBe("<b>MTN</b>: payouts <i>up</i>; collections &lt;x&gt;");
  });

  it("gives plain text for callback answers, with parameters as typed", () => {
    const t = translator("fr");
    expect(t.plain("access.refused", { id: 42 })).toContain("Votre identifiant Telegram est 42");
    expect(t.plain("payout.note", { note: "a<b>&c" })).toBe("Motif\u202F: a<b>&c");
    expect(t.locale).toBe("fr");
  });

  it("leaves a placeholder without a value visible rather than guessing", () => {
    expect(translator("en")("payout.to")).toBe("To: <b>{name}</b>");
  });

  it("round-trips escapeHtml through stripHtml", () => {
    const text = `<a href="x">&amp; 'q'`;
    expect(stripHtml(escapeHtml(text))).toBe(text);
    expect(escapeHtml('a&b<c>d"e')).toBe("a&amp;b&lt;c&gt;d&quot;e");
  });

  it("exposes both catalogs", () => {
    expect(Object.keys(allCatalogs()).sort()).toEqual(["en", "fr"]);
  });
});

describe("localeFromLanguageCode", () => {
  it.each([
    ["fr", "fr"],
    ["fr-CM", "fr"],
    ["FR", "fr"],
    ["en", "en"],
    ["de", "en"],
    ["", "en"],
    [undefined, "en"],
  ])("reads %s as %s", (code, locale) => {
    expect(localeFromLanguageCode(code)).toBe(locale);
  });

  it("accepts only the two supported locales", () => {
    expect(isLocale("en")).toBe(true);
    expect(isLocale("fr")).toBe(true);
    expect(isLocale("de")).toBe(false);
    expect(isLocale("EN")).toBe(false);
  });
});
