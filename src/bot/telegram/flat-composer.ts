/**
 * A Telegraf Composer whose middlewares run from one flat list. Telegraf's own `use` wraps
 * what came before and the new middleware in a new compose step, so a feature of N
 * handlers (each `command`, `action`, `on` is a `use`) is N nested steps, and every update
 * walks them all, allocating a promise and a closure at each level before it reaches the
 * handler it is for. Here `use` appends to a list and the chain is composed once, when it
 * is first run: the same middlewares in the same order, each `next` going on to the next
 * one, about half the steps.
 */
import { Composer, type Context, type Middleware, type MiddlewareFn } from "telegraf";

export class FlatComposer<C extends Context> extends Composer<C> {
  readonly #chain: Middleware<C>[] = [];
  #composed: MiddlewareFn<C> | undefined;

  override use(...fns: ReadonlyArray<Middleware<C>>): this {
    this.#chain.push(...fns);
    this.#composed = undefined;
    return this;
  }

  override middleware(): MiddlewareFn<C> {
    this.#composed ??= Composer.compose([...this.#chain]);
    return this.#composed;
  }
}
