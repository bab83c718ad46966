/**
 * Telegram's HTML parse mode, strict enough to catch what Telegram refuses: unknown tags,
 * bad nesting, unclosed tags, and a raw `<`. It is stricter than Telegram in one way on
 * purpose: a bare `&` that does not start `&amp;`, `&lt;`, `&gt;`, `&quot;` or a numeric
 * entity is refused (Telegram keeps it as text), because it means the bot forgot to escape.
 */
import type { MessageEntity } from "telegraf/types";
import { badRequest, type SentMessage } from "./types.js";

/** The text a user sees and its formatting, as Telegram stores a parsed message. */
export interface ParsedHtml {
  readonly text: string;
  readonly entities: MessageEntity[];
}

interface OpenTag {
  readonly name: string;
  readonly attributes: ReadonlyMap<string, string>;
  readonly offset: number;
}

type SimpleEntityType = MessageEntity.CommonMessageEntity["type"] | "pre";

const SIMPLE_TAGS: Readonly<Record<string, SimpleEntityType>> = {
  b: "bold",
  strong: "bold",
  i: "italic",
  em: "italic",
  u: "underline",
  ins: "underline",
  s: "strikethrough",
  strike: "strikethrough",
  del: "strikethrough",
  "tg-spoiler": "spoiler",
  span: "spoiler",
  code: "code",
  pre: "pre",
  blockquote: "blockquote",
};

const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"' };

const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]+));/y;
const START_TAG_NAME = /<([a-zA-Z][a-zA-Z0-9-]*)/y;
const END_TAG = /<\/([a-zA-Z][a-zA-Z0-9-]*)\s*>/y;
const ATTRIBUTE = /\s+([a-zA-Z_][a-zA-Z0-9_-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/y;
const TAG_END = /\s*>/y;

function fail(detail: string): never {
  throw badRequest(`can't parse entities: ${detail}`);
}

function byteOffset(html: string, index: number): number {
  return Buffer.byteLength(html.slice(0, index), "utf8");
}

function matchAt(pattern: RegExp, html: string, index: number): RegExpExecArray | null {
  pattern.lastIndex = index;
  return pattern.exec(html);
}

/** Decodes the entity at `index`; undefined when there is none or it is not one Telegram knows. */
function decodeEntity(html: string, index: number): { char: string; length: number } | undefined {
  const match = matchAt(ENTITY, html, index);
  if (!match) return undefined;
  const [whole, decimal, hex, name] = match;
  if (name !== undefined) {
    const char = NAMED_ENTITIES[name];
    return char === undefined ? undefined : { char, length: whole.length };
  }
  const codePoint = decimal !== undefined ? Number(decimal) : Number.parseInt(hex ?? "", 16);
  const valid =
    codePoint > 0 && codePoint <= 0x10ffff && (codePoint < 0xd800 || codePoint > 0xdfff);
  return valid ? { char: String.fromCodePoint(codePoint), length: whole.length } : undefined;
}

function decodeAttribute(value: string): string {
  let out = "";
  for (let i = 0; i < value.length; i += 1) {
    const entity = value[i] === "&" ? decodeEntity(value, i) : undefined;
    if (entity) {
      out += entity.char;
      i += entity.length - 1;
    } else {
      out += value[i];
    }
  }
  return out;
}

/** Reads `<name attr="v" ...>` at `index`; returns the tag and the index after `>`. */
function readStartTag(html: string, index: number, textOffset: number) {
  const nameMatch = matchAt(START_TAG_NAME, html, index);
  if (!nameMatch) fail(`Unsupported start tag "" at byte offset ${byteOffset(html, index)}`);
  const name = (nameMatch[1] ?? "").toLowerCase();
  const attributes = new Map<string, string>();
  let cursor = index + nameMatch[0].length;
  for (;;) {
    const end = matchAt(TAG_END, html, cursor);
    if (end) {
      cursor += end[0].length;
      break;
    }
    const attribute = matchAt(ATTRIBUTE, html, cursor);
    if (!attribute) fail(`Unclosed start tag at byte offset ${byteOffset(html, index)}`);
    const raw = attribute[2] ?? attribute[3] ?? attribute[4] ?? "";
    attributes.set((attribute[1] ?? "").toLowerCase(), decodeAttribute(raw));
    cursor += attribute[0].length;
  }
  checkTag(name, attributes, byteOffset(html, index));
  const tag: OpenTag = { name, attributes, offset: textOffset };
  return { tag, next: cursor };
}

function checkTag(name: string, attributes: ReadonlyMap<string, string>, at: number): void {
  if (name !== "a" && SIMPLE_TAGS[name] === undefined) {
    fail(`Unsupported start tag "${name}" at byte offset ${at}`);
  }
  if (name === "span" && attributes.get("class") !== "tg-spoiler") {
    fail(`Tag "span" must have class "tg-spoiler" at byte offset ${at}`);
  }
}

function toEntity(tag: OpenTag, length: number, parent: OpenTag | undefined): MessageEntity[] {
  if (length === 0) return [];
  const { offset } = tag;
  if (tag.name === "a") {
    const url = tag.attributes.get("href");
    return url ? [{ type: "text_link", offset, length, url }] : [];
  }
  const language = tag.attributes.get("class")?.replace(/^language-/, "");
  if (tag.name === "code" && parent?.name === "pre" && language) {
    return [{ type: "pre", offset, length, language }];
  }
  const type = SIMPLE_TAGS[tag.name];
  return type === undefined ? [] : [{ type, offset, length }];
}

/** Reads `</name>` at `index`, closing the innermost open tag; returns the index after it. */
function closeTag(
  html: string,
  index: number,
  stack: OpenTag[],
  text: string,
  out: MessageEntity[],
) {
  const match = matchAt(END_TAG, html, index);
  if (!match) fail(`Unclosed end tag at byte offset ${byteOffset(html, index)}`);
  const name = (match[1] ?? "").toLowerCase();
  const open = stack.pop();
  if (!open) fail(`Unexpected end tag at byte offset ${byteOffset(html, index)}`);
  if (open.name !== name) {
    const at = byteOffset(html, index);
    fail(`Unmatched end tag at byte offset ${at}, expected "</${open.name}>", found "</${name}>"`);
  }
  out.push(...toEntity(open, text.length - open.offset, stack[stack.length - 1]));
  return index + match[0].length;
}

/**
 * Parses a message in Telegram's HTML parse mode into plain text and entities (offsets in
 * UTF-16 code units, as the Bot API counts). Throws a 400 `BotApiError` worded like
 * Telegram's "can't parse entities" on anything Telegram would refuse.
 */
export function parseTelegramHtml(html: string): ParsedHtml {
  const stack: OpenTag[] = [];
  const entities: MessageEntity[] = [];
  let text = "";
  let i = 0;
  while (i < html.length) {
    const char = html[i] ?? "";
    if (char === "<" && html[i + 1] === "/") {
      i = closeTag(html, i, stack, text, entities);
    } else if (char === "<") {
      const { tag, next } = readStartTag(html, i, text.length);
      stack.push(tag);
      i = next;
    } else if (char === "&") {
      const entity = decodeEntity(html, i);
      if (!entity) fail(`Unescaped "&" at byte offset ${byteOffset(html, i)}, use &amp;`);
      text += entity.char;
      i += entity.length;
    } else {
      text += char;
      i += 1;
    }
  }
  const unclosed = stack.pop();
  if (unclosed) fail(`Can't find end tag corresponding to start tag "${unclosed.name}"`);
  entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
  return { text, entities };
}

/**
 * Turns a message written in Telegram HTML into the text a user reads: tags dropped,
 * entities decoded. Never throws: HTML Telegram would refuse is stripped leniently.
 */
export function htmlToPlainText(html: string): string {
  try {
    return parseTelegramHtml(html).text;
  } catch {
    return html
      .replace(/<[^>]*>/g, "")
      .replace(/&(lt|gt|quot|amp);/g, (_, name: string) => NAMED_ENTITIES[name] ?? "");
  }
}

/** The text a user reads in a bot message (HTML rendered, other parse modes as sent). */
export function plainText(message: SentMessage): string {
  return message.parseMode === "HTML" ? htmlToPlainText(message.text) : message.text;
}
