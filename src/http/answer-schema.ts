import build from 'fast-json-stringify';
import { z } from 'zod';
import { toJsonSchema } from '../capabilities/json-schema.js';
import { isJsonObject } from '../json.js';

export type JsonSchema = Record<string, unknown>;

const rendered = new WeakMap<z.ZodType, JsonSchema>();

/**
 * A JSON answer's JSON Schema, rendered from its one zod declaration the way the tools' are,
 * and only once: the route's serializer and the OpenAPI document both read this copy.
 */
export function answerSchema(shape: z.ZodType): JsonSchema {
  let schema = rendered.get(shape);
  if (!schema) {
    const { $schema: _dialect, ...json } = toJsonSchema(shape, 'output');
    schema = json;
    rendered.set(shape, schema);
  }
  return schema;
}

/** A JSON request body's JSON Schema, for the OpenAPI document (the handler parses it with the zod). */
export function bodySchema(shape: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = toJsonSchema(shape, 'input');
  return json;
}

/**
 * Fastify's serializer for a route whose response schema is its zod declaration: fast-json-stringify
 * writes only the keys a schema names, so a key no declaration names never reaches the wire.
 * Rendered and compiled on the route's first answer, not at boot: there they added half again
 * to building the app (90 ms of CPU over 200).
 */
export function answerSerializer({ schema }: { schema: unknown }): (data: unknown) => string {
  if (!(schema instanceof z.ZodType)) {
    throw new Error('A route answering JSON declares its answer as zod.');
  }
  let serialize: ((data: unknown) => string) | undefined;
  return (data) => {
    serialize ??= build(opened(answerSchema(schema)));
    return serialize(data);
  };
}

/**
 * The serializer picks a union's branch by validating the whole value against it, so two rules
 * are left out of what it compiles. `additionalProperties: false`: a stray key would fail every
 * branch (a 500) instead of being left out. `pattern`: the value is often a page's text (a title,
 * a url), and a pattern run on it by the serializer would choose a branch by content, or hang the
 * server on a page crafted for a backtracking regex; a branch is chosen by shape only.
 */
function opened(schema: JsonSchema): JsonSchema {
  return Object.fromEntries(
    Object.entries(schema)
      .filter(
        ([key, value]) =>
          !(key === 'additionalProperties' && value === false) && !(key === 'pattern' && typeof value === 'string'),
      )
      .map(([key, value]) => [key, openedValue(value)]),
  );
}

function openedValue(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(openedValue);
  }
  return isJsonObject(value) ? opened(value) : value;
}
