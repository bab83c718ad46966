/** The replies of the payout scripts (redis-payout-scripts.ts), read strictly with zod. */
import { z } from "zod";

/** The replies of TRANSITION_SCRIPT and MARK_SENDING_SCRIPT, read strictly. */
export const MarkSendingReplySchema = z.union([
  z.tuple([z.literal("not_found")]),
  z.tuple([z.literal("sending"), z.string().regex(/^\d+$/)]),
  z.tuple([z.literal("moved"), z.array(z.string())]),
]);

export const TransitionReplySchema = z.union([
  z
    .tuple([z.enum(["not_found", "corrupt"])])
    .transform(([status]) => ({ status, fields: null, over: null })),
  z
    .tuple([
      z.enum([
        "unchanged",
        "wrong_state",
        "payment_taken",
        "not_initiator",
        "expired",
        "needs_approval",
        "batch_stopped",
        "initiator_not_allowed",
        "decider_not_allowed",
        "decider_too_new",
        "applied",
      ]),
      z.array(z.string()),
    ])
    .transform(([status, fields]) => ({ status, fields, over: null })),
  z
    .tuple([
      z.literal("over_limit"),
      z.array(z.string()),
      z.enum(["payer", "merchant"]),
      z.string().regex(/^-?\d+$/),
    ])
    .transform(([status, fields, limit, used]) => ({
      status,
      fields,
      over: { limit, usedXaf: Number(used) },
    })),
]);
