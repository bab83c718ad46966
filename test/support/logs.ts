import { type Logger, pino } from "pino";
import { z } from "zod";

/** One JSON line a pino logger wrote: its numeric level, its message, and its fields. */
export const CapturedLineSchema = z.looseObject({ level: z.number(), msg: z.string().optional() });
export type CapturedLine = z.infer<typeof CapturedLineSchema>;

/** A pino logger (default level debug) that keeps what it writes, parsed, in `lines`. */
export function capturedLogger(level = "debug"): { logger: Logger; lines: CapturedLine[] } {
  const lines: CapturedLine[] = [];
  const destination = {
    write(chunk: string) {
      for (const line of chunk.split("\n")) {
        if (line.trim() !== "") lines.push(CapturedLineSchema.parse(JSON.parse(line)));
      }
    },
  };
  return { logger: pino({ level }, destination), lines };
}
