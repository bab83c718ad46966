/**
 * What a native French review of the bot found, held: one word per idea, plurals, and
 * buttons that fit half a row of a phone's keyboard.
 */
import { describe, expect, it } from "vitest";
import en from "../../locales/en.json" with { type: "json" };
import fr from "../../locales/fr.json" with { type: "json" };
import { translator } from "../../src/i18n.js";

const FR = fr as Record<string, string>;

describe("the bot's French", () => {
  it("says '1 minute', not '1 minutes'", () => {
    const t = translator("fr", "Africa/Douala");
    expect(t.plain("batch.minutes", { minutes: 1 })).toBe("1 minute");
    expect(t.plain("batch.minutes", { minutes: 5 })).toBe("5 minutes");
  });

  it.each([
    ["carte", "an approval card is a message"],
    ["Envoyée pour approbation", "the approval wording is 'Transmis pour approbation'"],
    ["Soumis à approbation", "the approval wording is 'Transmis pour approbation'"],
    ["déjà partie", "nothing left when a Cancel comes too late"],
    ["depuis {time}", "a date follows: 'depuis le'"],
  ])("never says %j (%s)", (words) => {
    expect(Object.entries(FR).filter(([, text]) => text.includes(words))).toEqual([]);
  });

  it("keeps a button that shares its row within 20 characters, as the English does", () => {
    const paired = [
      "button.confirm_with_pin",
      "button.approve_with_pin",
      "button.save_recipient",
      "button.skip_run",
    ];
    for (const key of paired) {
      expect(key in en, key).toBe(true);
      expect([...(FR[key] ?? "")].length, key).toBeLessThanOrEqual(20);
    }
  });
});
