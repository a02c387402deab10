import { z } from 'zod';
import { MAX_SELECTOR_CHARS } from '../limits.js';
import { selector } from './schemas.js';

export type ObjectSchema = { type: 'object' } & Record<string, unknown>;

/**
 * Every tool takes and answers an object, so its JSON Schema is an object schema. MCP,
 * OpenAPI and the docs all render through here, so they cannot disagree.
 */
export function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): ObjectSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override: compactSelector,
  });
  return { ...json, type: 'object' };
}

/**
 * zod renders the selector union as an anyOf of two one-key objects; one object with at most
 * and at least one of its two keys says the same in a third of the bytes, in every tool that
 * takes a selector (tools/list is read on every connection).
 */
function compactSelector(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  if (ctx.zodSchema !== selector) {
    return;
  }
  delete ctx.jsonSchema.anyOf;
  Object.assign(ctx.jsonSchema, {
    type: 'object',
    properties: {
      css: { type: 'string', maxLength: MAX_SELECTOR_CHARS },
      xpath: { type: 'string', maxLength: MAX_SELECTOR_CHARS },
    },
    minProperties: 1,
    maxProperties: 1,
    additionalProperties: false,
  });
}
