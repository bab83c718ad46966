import { describe, expect, it } from "vitest";
import { htmlToPlainText, parseTelegramHtml } from "../../../../src/dev/telegram-emulator/html.js";
import { BotApiError } from "../../../../src/dev/telegram-emulator/types.js";

function refusal(html: string): string {
  try {
    parseTelegramHtml(html);
  } catch (error) {
    if (error instanceof BotApiError) return error.description;
    throw error;
  }
  throw new Error(`${html} was accepted`);
}

describe("parseTelegramHtml", () => {
  it("turns nested tags into entities with UTF-16 offsets", () => {
    const parsed = parseTelegramHtml("💸 <b>Pay <i>5 000</i></b> XAF");
    expect(parsed.text).toBe("💸 Pay 5 000 XAF");
    expect(parsed.entities).toEqual([
      { type: "bold", offset: 3, length: 9 },
      { type: "italic", offset: 7, length: 5 },
    ]);
  });

  it("accepts every tag Telegram documents, in any letter case", () => {
    const html =
      '<B>b</B><strong>s</strong><em>e</em><u>u</u><ins>n</ins><s>s</s><strike>k</strike><del>d</del><tg-spoiler>t</tg-spoiler><span class="tg-spoiler">p</span><blockquote>q</blockquote><a href="https://x.test">a</a>';
    const parsed = parseTelegramHtml(html);
    expect(parsed.text).toBe("bseunskdtpqa");
    expect(parsed.entities.map((entity) => entity.type)).toEqual([
      "bold",
      "bold",
      "italic",
      "underline",
      "underline",
      "strikethrough",
      "strikethrough",
      "strikethrough",
      "spoiler",
      "spoiler",
      "blockquote",
      "text_link",
    ]);
  });

  it("reads a language from <pre><code class>", () => {
    const parsed = parseTelegramHtml('<pre><code class="language-ts">x</code></pre>');
    expect(parsed.entities).toContainEqual({ type: "pre", offset: 0, length: 1, language: "ts" });
  });

  it("decodes the entities Telegram knows, numeric ones included", () => {
    expect(parseTelegramHtml("&lt;&gt;&amp;&quot;&#39;&#x41;").text).toBe("<>&\"'A");
  });

  it("refuses unknown tags, naming them and their byte offset", () => {
    expect(refusal("é<br>")).toBe(
      'Bad Request: can\'t parse entities: Unsupported start tag "br" at byte offset 2',
    );
  });

  it("refuses crossed, unclosed and stray end tags", () => {
    expect(refusal("<b><i>x</b></i>")).toMatch(/Unmatched end tag at byte offset 7/);
    expect(refusal("<b>x")).toMatch(/Can't find end tag corresponding to start tag "b"/);
    expect(refusal("x</b>")).toMatch(/Unexpected end tag at byte offset 1/);
  });

  it("refuses a raw < and an unescaped &", () => {
    expect(refusal("1 < 2")).toMatch(/Unsupported start tag "" at byte offset 2/);
    expect(refusal("R&D")).toMatch(/Unescaped "&" at byte offset 1/);
    expect(refusal("&nbsp;")).toMatch(/Unescaped "&"/);
  });

  it("refuses a span that is not a spoiler", () => {
    expect(refusal('<span class="red">x</span>')).toMatch(/must have class "tg-spoiler"/);
  });
});

describe("htmlToPlainText", () => {
  it("strips tags and decodes entities", () => {
    expect(htmlToPlainText('<b>Tom</b> &amp; <a href="x">Jerry</a>')).toBe("Tom & Jerry");
  });

  it("still strips HTML Telegram would refuse", () => {
    expect(htmlToPlainText("<b>open &lt; <br>")).toBe("open < ");
  });
});
