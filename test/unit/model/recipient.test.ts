import { describe, expect, it } from "vitest";
import { aliasKey, parseAlias } from "../../../src/model/recipient.js";
import { looksLikeAlias } from "../../../src/payouts/recipients.js";

describe("aliases", () => {
  it("match without regard to case or accents", () => {
    expect(aliasKey("Aïcha")).toBe("aicha");
    expect(aliasKey("AICHA")).toBe("aicha");
    // The same letter typed decomposed (a + combining diaeresis) is the same alias.
    expect(aliasKey("Ai\u0308cha")).toBe("aicha");
    expect(parseAlias("  Jean-Paul_2.0 ")).toEqual({
      ok: true,
      alias: "Jean-Paul_2.0",
      key: "jean-paul_2.0",
    });
  });

  it("take 2 to 32 letters, digits, _ - and ., with at least one letter", () => {
    expect(parseAlias("j")).toEqual({ ok: false, problem: "length" });
    expect(parseAlias("é".repeat(32)).ok).toBe(true);
    expect(parseAlias("é".repeat(33))).toEqual({ ok: false, problem: "length" });
    expect(parseAlias("jean paul")).toEqual({ ok: false, problem: "characters" });
    expect(parseAlias("<b>jean</b>")).toEqual({ ok: false, problem: "characters" });
    expect(parseAlias("670000001")).toEqual({ ok: false, problem: "no_letter" });
    expect(parseAlias("12-34")).toEqual({ ok: false, problem: "no_letter" });
  });

  it("are told apart from numbers by their letters", () => {
    expect(looksLikeAlias("jean")).toBe(true);
    expect(looksLikeAlias("Mbarga.2")).toBe(true);
    expect(looksLikeAlias("670000001")).toBe(false);
    expect(looksLikeAlias("+237 670 00 00 01")).toBe(false);
    expect(looksLikeAlias("<b>670000001</b>")).toBe(false);
  });
});

describe("parseAlias and look-alikes", () => {
  it("refuses an alias that mixes scripts: jеan with a Cyrillic е is not jean", () => {
    expect(parseAlias("j\u0435an")).toEqual({ ok: false, problem: "mixed_scripts" });
    expect(parseAlias("p\u03bfl")).toEqual({ ok: false, problem: "mixed_scripts" });
    // One script is fine, whichever it is.
    expect(parseAlias("жан")).toMatchObject({ ok: true, alias: "жан" });
    expect(parseAlias("jean")).toMatchObject({ ok: true, key: "jean" });
  });

  it("refuses an alias that reads as a number once O, o, I, l, i are read as digits", () => {
    expect(parseAlias("67O000001")).toEqual({ ok: false, problem: "looks_like_number" });
    expect(parseAlias("6700000l1")).toEqual({ ok: false, problem: "looks_like_number" });
    expect(parseAlias("237-67O-000-001")).toEqual({ ok: false, problem: "looks_like_number" });
    // Letters that are letters, or no digit at all, are aliases.
    expect(parseAlias("lol")).toMatchObject({ ok: true });
    expect(parseAlias("jean2")).toMatchObject({ ok: true });
    expect(parseAlias("bob-10")).toMatchObject({ ok: true });
  });

  it("folds compatibility forms: fullwidth ｊｅａｎ is jean", () => {
    expect(parseAlias("ｊｅａｎ")).toEqual({ ok: true, alias: "jean", key: "jean" });
  });
});
