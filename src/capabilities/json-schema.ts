import { z } from 'zod';
import { selector } from './schemas.js';

export type ObjectSchema = { type: 'object' } & Record<string, unknown>;

/**
 * Every tool takes and answers an object, so its JSON Schema is an object schema. MCP,
 * OpenAPI and the docs all render through here, so they cannot disagree.
 */
export function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): ObjectSchema {
  const { $schema: _dialect, ...json } = toJsonSchema(schema, io);
  return { ...json, type: 'object' };
}

/** Any schema as a whole JSON Schema document (with its `$schema`), rendered as the tools' are. */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  return z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any', override: compactSelector });
}

/**
 * zod renders the selector union as an anyOf of two one-key objects; one object with at most
 * and at least one of its two keys says the same in a third of the bytes, in every tool that
 * takes a selector (tools/list is read on every connection). Its keys are the union's, as rendered.
 */
function compactSelector(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  if (ctx.zodSchema !== selector) {
    return;
  }
  const options = (ctx.jsonSchema.anyOf ?? []) as { properties?: Record<string, unknown> }[];
  delete ctx.jsonSchema.anyOf;
  Object.assign(ctx.jsonSchema, {
    type: 'object',
    properties: Object.assign({}, ...options.map((option) => option.properties)) as Record<string, unknown>,
    minProperties: 1,
    maxProperties: 1,
    additionalProperties: false,
  });
}
