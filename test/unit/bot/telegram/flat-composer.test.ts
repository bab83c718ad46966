/**
 * FlatComposer runs the same middlewares in the same order as Telegraf's Composer: each
 * handler as registered, `next` going on, a handler that does not call it ending the chain,
 * a filter (`command`, `on`) passing what it does not take, and one added later included;
 * whatever the kind of update (a message, an edited one, a button press), though each kind
 * runs only the handlers that can take it.
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

function pressUpdate(data: string): Update {
  return {
    update_id: 2,
    callback_query: {
      id: "q1",
      chat_instance: "c",
      from: { id: 7, is_bot: false, first_name: "Paul" },
      data,
      message: {
        message_id: 1,
        date: 0,
        chat: { id: 7, type: "private", first_name: "Paul" },
        text: "prompt",
      },
    },
  } as Update;
}

/** A message edited to `text`: an `edited_message` update, which no `command` takes. */
function editedUpdate(text: string): Update {
  const { message } = textUpdate(text) as Update.MessageUpdate;
  return { update_id: 3, edited_message: { ...message, edit_date: 1 } } as Update;
}

/** The same handlers on a composer: what ran, in order, for one update. */
async function run(composer: Composer<Context>, update: Update | string): Promise<string[]> {
  const ran: string[] = [];
  const mark =
    (name: string, goOn: boolean): Middleware<Context> =>
    async (_ctx, next) => {
      ran.push(name);
      if (goOn) await next();
    };
  composer.use(mark("first", true));
  composer.command("pay", mark("pay", false));
  composer.action("no", mark("no", true));
  composer.on("message", mark("any message", true));
  composer.hears(/^hello/, mark("hello", false));
  composer.action(/^ok/, mark("ok", false));
  composer.on("callback_query", mark("any press", true));
  composer.use(mark("last", true));
  const ctx = new Context(
    typeof update === "string" ? textUpdate(update) : update,
    {} as never,
    ME,
  );
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

  const others = [
    ["a press on OK", pressUpdate("ok:1"), ["first", "ok"]],
    ["a press on another button", pressUpdate("later"), ["first", "any press", "last", "after"]],
    ["a press on NO", pressUpdate("no"), ["first", "no", "any press", "last", "after"]],
    ["an edited /pay", editedUpdate("/pay 670000001 5000"), ["first", "last", "after"]],
  ] as const;
  for (const [name, update, expected] of others) {
    it(`runs what Telegraf's Composer runs for ${name}, and only the handlers for it`, async () => {
      const flat = await run(new FlatComposer<Context>(), update);
      expect(flat).toEqual(await run(new Composer<Context>(), update));
      expect(flat).toEqual(expected);
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
