/**
 * What a payout is searched by: its words, folded as aliases are, each word typed matching the
 * start of one of them; and the status group each state reads as.
 */
import { describe, expect, it } from "vitest";
import { PAYOUT_STATES } from "../../../src/model/lifecycle.js";
import { aliasKey } from "../../../src/model/recipient.js";
import {
  MAX_SEARCH_WORDS,
  MAX_WORD_LENGTH,
  STATUS_GROUPS,
  searchWordsOf,
  statusGroupOf,
  wordsMatch,
  wordsOf,
} from "../../../src/model/search.js";

describe("search words", () => {
  it("folds accents and case as alias keys do, and splits on anything but letters and digits", () => {
    expect(wordsOf("AÏCHA Ngono-Béti, n°12")).toEqual(["aicha", "ngono", "beti", "n", "12"]);
    for (const alias of ["Aïcha", "ÉLODIE", "Ñandú"])
      expect(wordsOf(alias)).toEqual([aliasKey(alias)]);
    expect(wordsOf("  — !! ")).toEqual([]);
  });

  it("takes the name, the note and the alias, each word once, cut and capped", () => {
    const long = "x".repeat(MAX_WORD_LENGTH + 5);
    expect(
      searchWordsOf({ recipientName: "Paul Paul", note: `loyer ${long}`, recipientAlias: "élec" }),
    ).toEqual(["paul", "loyer", "x".repeat(MAX_WORD_LENGTH), "elec"]);
    const many = Array.from({ length: MAX_SEARCH_WORDS + 10 }, (_, i) => `w${i}`).join(" ");
    expect(searchWordsOf({ recipientName: many })).toHaveLength(MAX_SEARCH_WORDS);
  });

  it("matches when every word typed begins one of the payout's words, in any order", () => {
    const words = searchWordsOf({ recipientName: "Aïcha Ngono" });
    expect(wordsMatch(words, wordsOf("ngo aï"))).toBe(true);
    expect(wordsMatch(words, wordsOf("AICHA"))).toBe(true);
    expect(wordsMatch(words, wordsOf("cha"))).toBe(false);
    expect(wordsMatch(words, wordsOf("aicha paul"))).toBe(false);
  });

  it("gives every state one status group", () => {
    for (const state of PAYOUT_STATES) expect(STATUS_GROUPS).toContain(statusGroupOf(state));
    expect(statusGroupOf("success")).toBe("paid");
    expect(statusGroupOf("rejected_by_api")).toBe("failed");
    expect(statusGroupOf("submitting")).toBe("pending");
  });
});
