/**
 * The payout store with its moves counted: every state change of a payout goes through
 * `transition` (and a new one through `create`), so this is the one place a move is seen.
 * Only a move this call made is counted (`applied`), so a resend that finds its move made,
 * or a move refused, counts nothing. Every other call goes straight to the store.
 */
import type { PayoutEvent } from "../model/lifecycle.js";
import type { Payout } from "../model/payout.js";
import type { PayoutStore } from "../store/types.js";
import type { Metrics } from "./metrics.js";

export class CountedPayoutStore implements PayoutStore {
  readonly #store: PayoutStore;
  readonly #metrics: Metrics;
  readonly #moved: ((payout: Payout) => void) | undefined;

  /** `moved`: told of every move made, after it (a merchant's runtime wakes its tracker). */
  constructor(store: PayoutStore, metrics: Metrics, moved?: (payout: Payout) => void) {
    this.#store = store;
    this.#metrics = metrics;
    this.#moved = moved;
  }

  async create(...args: Parameters<PayoutStore["create"]>) {
    const created = await this.#store.create(...args);
    this.#count("create", args[0]);
    return created;
  }

  async transition(...args: Parameters<PayoutStore["transition"]>) {
    const result = await this.#store.transition(...args);
    if (result.ok && result.applied) {
      this.#count(args[1], result.payout);
      this.#moved?.(result.payout);
    }
    return result;
  }

  #count(event: PayoutEvent | "create", payout: Payout): void {
    this.#metrics.payoutMoved({
      event,
      to: payout.state,
      kind: payout.kind,
      operator: payout.operator,
      amountXaf: payout.amount,
    });
  }

  openPrompt(...args: Parameters<PayoutStore["openPrompt"]>) {
    return this.#store.openPrompt(...args);
  }
  get(...args: Parameters<PayoutStore["get"]>) {
    return this.#store.get(...args);
  }
  markSending(...args: Parameters<PayoutStore["markSending"]>) {
    return this.#store.markSending(...args);
  }
  update(...args: Parameters<PayoutStore["update"]>) {
    return this.#store.update(...args);
  }
  findByPaymentId(...args: Parameters<PayoutStore["findByPaymentId"]>) {
    return this.#store.findByPaymentId(...args);
  }
  listByPhone(...args: Parameters<PayoutStore["listByPhone"]>) {
    return this.#store.listByPhone(...args);
  }
  latestRepeat(...args: Parameters<PayoutStore["latestRepeat"]>) {
    return this.#store.latestRepeat(...args);
  }
  list(...args: Parameters<PayoutStore["list"]>) {
    return this.#store.list(...args);
  }
  findByWords(...args: Parameters<PayoutStore["findByWords"]>) {
    return this.#store.findByWords(...args);
  }
  listByStatus(...args: Parameters<PayoutStore["listByStatus"]>) {
    return this.#store.listByStatus(...args);
  }
  listCreated(...args: Parameters<PayoutStore["listCreated"]>) {
    return this.#store.listCreated(...args);
  }
  listInState(...args: Parameters<PayoutStore["listInState"]>) {
    return this.#store.listInState(...args);
  }
  pageInState(...args: Parameters<PayoutStore["pageInState"]>) {
    return this.#store.pageInState(...args);
  }
  idsInState(...args: Parameters<PayoutStore["idsInState"]>) {
    return this.#store.idsInState(...args);
  }
  countInStates() {
    return this.#store.countInStates();
  }
  oldestInState(...args: Parameters<PayoutStore["oldestInState"]>) {
    return this.#store.oldestInState(...args);
  }
  settledTotals(...args: Parameters<PayoutStore["settledTotals"]>) {
    return this.#store.settledTotals(...args);
  }
}
