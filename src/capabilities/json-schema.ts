import { z } from 'zod';

export type ObjectSchema = { type: 'object' } & Record<string, unknown>;

/**
 * Every tool takes and answers an object, so its JSON Schema is an object schema. MCP,
 * OpenAPI and the docs all render through here, so they cannot disagree.
 */
export function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): ObjectSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' });
  return { ...json, type: 'object' };
}
