/**
 * The Mini App's Overview: the last 30 days as paid volume per day by operator, the success
 * rate and fees, and what needs a person (pending too long, unknown, waiting for approval).
 * Read page by page from the creation index, as the digest and /export read it; a person
 * who may not see everyone's payouts gets their own only (payouts/policy.ts).
 */
import { setImmediate as yieldToOthers } from "node:timers/promises";
import { chargedFee, type Payout } from "../../model/payout.js";
import { payoutsInState } from "../../store/payout-store.js";
import type { Stores } from "../../store/types.js";
import { dayOf } from "../../time.js";
import { type Asker, maySee } from "../policy.js";

export const OVERVIEW_DAYS = 30;
const PAGE = 500;
/** Items listed under "needs a person" per kind; the count says how many there are. */
const ATTENTION_LIST = 20;

export interface DayVolume {
  /** YYYY-MM-DD in TIME_ZONE. */
  day: string;
  /** Paid disbursements (XAF) by operator. */
  mtn: number;
  orange: number;
}

export interface AttentionItem {
  id: string;
  state: Payout["state"];
  amount: number;
  phone: string;
  recipientName: string;
  createdAtMs: number;
}

export interface Overview {
  days: DayVolume[];
  paidXaf: number;
  paidCount: number;
  /** Final payouts that succeeded, of all final ones sent to the API (null: none). */
  successRate: number | null;
  feesXaf: number;
  attention: {
    stuck: { count: number; items: AttentionItem[] };
    unknown: { count: number; items: AttentionItem[] };
    awaitingApproval: { count: number; items: AttentionItem[] };
  };
}

const SENT_FINAL = new Set<Payout["state"]>(["success", "failed", "canceled", "rejected_by_api"]);

function item(payout: Payout): AttentionItem {
  const { id, state, amount, phone, recipientName, createdAtMs } = payout;
  return { id, state, amount, phone, recipientName, createdAtMs };
}

async function attentionOf(
  stores: Stores,
  state: "pending" | "unknown" | "awaiting_approval",
  keep: (payout: Payout) => boolean,
) {
  const found: Payout[] = [];
  for await (const page of payoutsInState(stores.payouts, state, PAGE)) {
    found.push(...page.filter(keep));
  }
  found.sort((a, b) => a.createdAtMs - b.createdAtMs);
  return { count: found.length, items: found.slice(0, ATTENTION_LIST).map(item) };
}

export async function overviewFor(
  options: { stores: Stores; timeZone: string; stuckAfterMs: number; now: () => number },
  asker: Asker,
): Promise<Overview> {
  const { stores, timeZone } = options;
  const nowMs = options.now();
  const fromMs = nowMs - OVERVIEW_DAYS * 86_400_000;
  const days = new Map<string, DayVolume>();
  for (let ms = fromMs + 86_400_000; ms <= nowMs + 1; ms += 86_400_000) {
    const day = dayOf(Math.min(ms, nowMs), timeZone);
    days.set(day, { day, mtn: 0, orange: 0 });
  }
  let paidXaf = 0;
  let paidCount = 0;
  let feesXaf = 0;
  let finals = 0;
  let successes = 0;
  let after: string | undefined;
  do {
    const page = await stores.payouts.listCreated({
      fromMs,
      toMs: nowMs,
      limit: PAGE,
      ...(after === undefined ? {} : { after }),
    });
    for (const payout of page.items) {
      if (!maySee(asker, payout)) continue;
      if (SENT_FINAL.has(payout.state)) finals += 1;
      feesXaf += chargedFee(payout) ?? 0;
      if (payout.state !== "success") continue;
      successes += 1;
      if (payout.kind !== "disbursement") continue;
      paidXaf += payout.amount;
      paidCount += 1;
      const day = days.get(dayOf(payout.settledAtMs ?? payout.createdAtMs, timeZone));
      if (day) day[payout.operator] += payout.amount;
    }
    after = page.next;
    if (after !== undefined) await yieldToOthers();
  } while (after !== undefined);
  const stuckBefore = nowMs - options.stuckAfterMs;
  const visible = (payout: Payout) => maySee(asker, payout);
  const [stuck, unknown, awaitingApproval] = await Promise.all([
    attentionOf(
      stores,
      "pending",
      (payout) => visible(payout) && (payout.sentAtMs ?? payout.createdAtMs) < stuckBefore,
    ),
    attentionOf(stores, "unknown", visible),
    attentionOf(stores, "awaiting_approval", visible),
  ]);
  return {
    days: [...days.values()].sort((a, b) => a.day.localeCompare(b.day)),
    paidXaf,
    paidCount,
    successRate: finals === 0 ? null : successes / finals,
    feesXaf,
    attention: { stuck, unknown, awaitingApproval },
  };
}
