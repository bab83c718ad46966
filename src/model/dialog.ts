/** The step-by-step /pay and /collect dialog: where one chat is in it. */
import { z } from "zod";

/** A conversation in progress in one chat (the /pay dialog). */
export interface DialogState {
  kind: "disbursement" | "collection";
  step: "phone" | "amount";
  phone?: string;
  /** The saved recipient's alias the number was given by (looked up again at the prompt). */
  alias?: string;
}

export const DialogStateSchema: z.ZodType<DialogState> = z.object({
  kind: z.enum(["disbursement", "collection"]),
  step: z.enum(["phone", "amount"]),
  phone: z.string().optional(),
  alias: z.string().max(64).optional(),
});
