/**
 * FlatComposer runs the same middlewares in the same order as Telegraf's Composer: each
 * handler as registered, `next` going on, a handler that does not call it ending the chain,
 * a filter (`command`, `on`) passing what it does not take, and one added later included.
 */
import { Composer, Context, type Middleware } from "telegraf";
import type { Update, UserFromGetMe } from "telegraf/types";
import { describe, expect, it } from "vitest";
import { FlatComposer } from "../../../../src/bot/telegram/flat-composer.js";

const ME = { id: 1, is_bot: true, first_name: "Bot", username: "bot" } as UserFromGetMe;

function textUpdate(text: string): Update {
  const entities = text.startsWith("/")
    ? [{ type: "bot_command" as const, offset: 0, length: text.split(" ")[0]?.length ?? 0 }]
    : undefined;
  return {
    update_id: 1,
    message: {
      message_id: 1,
      date: 0,
      chat: { id: 7, type: "private", first_name: "Paul" },
      from: { id: 7, is_bot: false, first_name: "Paul" },
      text,
      ...(entities ? { entities } : {}),
    },
  } as Update;
}

/** The same handlers on a composer: what ran, in order, for one update. */
async function run(composer: Composer<Context>, text: string): Promise<string[]> {
  const ran: string[] = [];
  const mark =
    (name: string, goOn: boolean): Middleware<Context> =>
    async (_ctx, next) => {
      ran.push(name);
      if (goOn) await next();
    };
  composer.use(mark("first", true));
  composer.command("pay", mark("pay", false));
  composer.on("message", mark("any message", true));
  composer.hears(/^hello/, mark("hello", false));
  composer.use(mark("last", true));
  const ctx = new Context(textUpdate(text), {} as never, ME);
  await composer.middleware()(ctx, async () => {
    ran.push("after");
  });
  return ran;
}

describe("FlatComposer", () => {
  for (const text of ["/pay 670000001 5000", "hello there", "something else"]) {
    it(`runs what Telegraf's Composer runs, in the same order, for "${text}"`, async () => {
      const flat = await run(new FlatComposer<Context>(), text);
      expect(flat).toEqual(await run(new Composer<Context>(), text));
      expect(flat[0]).toBe("first");
    });
  }

  it("ends the chain where a handler does not go on, and goes past the end when all do", async () => {
    expect(await run(new FlatComposer<Context>(), "/pay 670000001 5000")).toEqual(["first", "pay"]);
    expect(await run(new FlatComposer<Context>(), "something else")).toEqual([
      "first",
      "any message",
      "last",
      "after",
    ]);
  });

  it("includes a middleware added after the chain was first run", async () => {
    const composer = new FlatComposer<Context>();
    const ran: string[] = [];
    composer.use(async (_ctx, next) => {
      ran.push("a");
      await next();
    });
    const ctx = () => new Context(textUpdate("x"), {} as never, ME);
    await composer.middleware()(ctx(), async () => {});
    composer.use(async () => {
      ran.push("b");
    });
    await composer.middleware()(ctx(), async () => {});
    expect(ran).toEqual(["a", "a", "b"]);
  });
});
