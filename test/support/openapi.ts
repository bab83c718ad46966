/**
 * A small validator for the part of OpenAPI 3.0 schemas that the real service's published
 * document uses: `type` (object, array, string, integer, number, boolean), `properties`,
 * `required`, `items`, `enum`, `nullable`, `format: date-time` and local `$ref`s. Anything
 * else in a schema makes it throw, so a newer document cannot be checked half-way unnoticed.
 *
 * One reading of ours: a property the document does not list in `required` may be absent
 * or null. The document marks nothing nullable, yet the service's own 201 examples send
 * `"description": null`; the examples are what the service does.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";

const KNOWN_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "items",
  "enum",
  "nullable",
  "format",
  "example",
  "description",
  "$ref",
]);

interface SchemaNode {
  [keyword: string]: unknown;
}

const SchemaNodeSchema = z.record(z.string(), z.unknown());

export class OpenApiDocument {
  readonly #document: SchemaNode;

  constructor(path: URL) {
    this.#document = SchemaNodeSchema.parse(JSON.parse(readFileSync(path, "utf8")));
  }

  /** The schema of `status` answers to `method path` (path as written in the document). */
  responseSchema(method: string, path: string, status: number): SchemaNode {
    const schema = this.#at([
      "paths",
      path,
      method.toLowerCase(),
      "responses",
      String(status),
      "content",
      "application/json",
      "schema",
    ]);
    return SchemaNodeSchema.parse(schema);
  }

  /** The problems of `value` against `schema`, each with its path; empty when it conforms. */
  problems(schema: SchemaNode, value: unknown, at = "(body)"): string[] {
    for (const keyword of Object.keys(schema)) {
      if (!KNOWN_KEYWORDS.has(keyword)) throw new Error(`${at}: unsupported keyword ${keyword}`);
    }
    if (typeof schema.$ref === "string")
      return this.problems(this.#resolve(schema.$ref), value, at);
    if (value === null) return schema.nullable === true ? [] : [`${at}: null`];
    const typeProblem = this.#typeProblem(schema.type, value, at);
    if (typeProblem) return [typeProblem];
    if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
      return [`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`];
    }
    if (schema.format === "date-time" && (typeof value !== "string" || !isDateTime(value))) {
      return [`${at}: not an ISO 8601 date-time`];
    }
    if (schema.type === "array" && Array.isArray(value)) {
      const items = SchemaNodeSchema.parse(schema.items ?? {});
      return value.flatMap((item, index) => this.problems(items, item, `${at}[${index}]`));
    }
    if (schema.type === "object") return this.#objectProblems(schema, value, at);
    return [];
  }

  #objectProblems(schema: SchemaNode, value: unknown, at: string): string[] {
    const record = SchemaNodeSchema.parse(value);
    const properties = SchemaNodeSchema.parse(schema.properties ?? {});
    const required = z.array(z.string()).parse(schema.required ?? []);
    const problems = required
      .filter((name) => record[name] === undefined)
      .map((name) => `${at}.${name}: required`);
    for (const [name, propertySchema] of Object.entries(properties)) {
      const property = record[name];
      if (property === undefined) continue;
      // Not required: absent or null (see the note at the top).
      if (property === null && !required.includes(name)) continue;
      problems.push(
        ...this.problems(SchemaNodeSchema.parse(propertySchema), property, `${at}.${name}`),
      );
    }
    return problems;
  }

  #typeProblem(type: unknown, value: unknown, at: string): string | null {
    if (type === undefined) return null;
    const ok =
      (type === "object" && typeof value === "object" && value !== null && !Array.isArray(value)) ||
      (type === "array" && Array.isArray(value)) ||
      (type === "string" && typeof value === "string") ||
      (type === "integer" && Number.isInteger(value)) ||
      (type === "number" && typeof value === "number") ||
      (type === "boolean" && typeof value === "boolean");
    return ok ? null : `${at}: expected ${String(type)}, got ${JSON.stringify(value)}`;
  }

  #resolve(ref: string): SchemaNode {
    if (!ref.startsWith("#/")) throw new Error(`only local $refs are supported: ${ref}`);
    return SchemaNodeSchema.parse(this.#at(ref.slice(2).split("/")));
  }

  #at(path: string[]): unknown {
    let node: unknown = this.#document;
    for (const key of path) {
      const record = SchemaNodeSchema.safeParse(node);
      node = record.success ? record.data[key] : undefined;
      if (node === undefined) throw new Error(`the document has nothing at ${path.join(" › ")}`);
    }
    return node;
  }
}

function isDateTime(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text);
}
