/**
 * zod schemas of the small records the stores keep (dialogs, audit entries, roles), checked
 * on the way in and on every read, and tied to the interfaces of types.ts.
 */
import type { z } from "zod";

/** Parses `value` or throws an error naming `what` (for data we are about to store). */
export function checkInput<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join(".") || "(value)"}: ${issue.message}`,
    );
    throw new Error(`${what} is not valid: ${problems.join("; ")}`);
  }
  return parsed.data;
}

/** JSON.parse, with `undefined` for text that is not JSON (the schema check then fails). */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
