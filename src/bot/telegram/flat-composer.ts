/**
 * A Telegraf Composer whose middlewares run from one flat list. Telegraf's own `use` wraps
 * what came before and the new middleware in a new compose step, so a feature of N
 * handlers (each `command`, `action`, `on` is a `use`) is N nested steps, and every update
 * walks them all, allocating a promise and a closure at each level before it reaches the
 * handler it is for. Here `use` appends to a list and the chain is composed once, when it
 * is first run: the same middlewares in the same order, each `next` going on to the next
 * one, about half the steps.
 *
 * A `command` or `hears` handler can only ever match a `message` update, and an `action`
 * only a `callback_query` (Telegraf's own filters say so): each kind of update runs a chain
 * of its own, without the handlers that would only pass it on (each of which costs
 * Telegraf a promise or two to find out). Every other middleware is in every chain, and
 * the order within a chain is the order of registration.
 */
import { Composer, type Context, type Middleware, type MiddlewareFn } from "telegraf";

/** The update kinds a middleware can act on; undefined: any. */
type Kinds = ReadonlySet<string> | undefined;

const MESSAGE: Kinds = new Set(["message"]);
const CALLBACK_QUERY: Kinds = new Set(["callback_query"]);

interface Entry<C extends Context> {
  middleware: Middleware<C>;
  kinds: Kinds;
}

export class FlatComposer<C extends Context> extends Composer<C> {
  readonly #chain: Entry<C>[] = [];
  readonly #composed = new Map<string, MiddlewareFn<C>>();
  /** The kinds of what `use` is given while a `command`, `hears` or `action` registers. */
  #registering: Kinds;
  #router: MiddlewareFn<C> | undefined;

  override use(...fns: ReadonlyArray<Middleware<C>>): this {
    for (const middleware of fns) this.#chain.push({ middleware, kinds: this.#registering });
    this.#composed.clear();
    return this;
  }

  // Telegraf's `command` filters on `message("text")` (its typings leave out the old
  // one-argument form, which also took channel posts), `hears` on a message's text.
  override command(...args: Parameters<Composer<C>["command"]>): this {
    return this.#registeringAs(MESSAGE, () => super.command(...args));
  }

  override hears(...args: Parameters<Composer<C>["hears"]>): this {
    return this.#registeringAs(MESSAGE, () => super.hears(...args));
  }

  // Telegraf's `action` filters on "callback_query" in the update.
  override action(...args: Parameters<Composer<C>["action"]>): this {
    return this.#registeringAs(CALLBACK_QUERY, () => super.action(...args));
  }

  override middleware(): MiddlewareFn<C> {
    this.#router ??= (ctx, next) => this.#chainFor(kindOf(ctx))(ctx, next);
    return this.#router;
  }

  #registeringAs(kinds: Kinds, register: () => this): this {
    this.#registering = kinds;
    try {
      return register();
    } finally {
      this.#registering = undefined;
    }
  }

  #chainFor(kind: string): MiddlewareFn<C> {
    let composed = this.#composed.get(kind);
    if (!composed) {
      const fns = this.#chain
        .filter((entry) => entry.kinds === undefined || entry.kinds.has(kind))
        .map((entry) => entry.middleware);
      composed = Composer.compose(fns);
      this.#composed.set(kind, composed);
    }
    return composed;
  }
}

/** The update's kind ("message", "callback_query", …), as Telegraf reads it; "" if none. */
function kindOf(ctx: Context): string {
  for (const key in ctx.update) {
    if (typeof Reflect.get(ctx.update, key) === "object") return key;
  }
  return "";
}
