/** One line of the audit log: who did what to which payout, and when. */
import { z } from "zod";

export interface AuditEntry {
  atMs: number;
  actorId: number;
  action: string;
  payoutId?: string;
  details?: Record<string, string | number | boolean | null>;
}

export const AuditEntrySchema: z.ZodType<AuditEntry> = z.object({
  atMs: z.number().int(),
  actorId: z.number().int(),
  action: z.string().min(1),
  payoutId: z.string().optional(),
  details: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .optional(),
});
