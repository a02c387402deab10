import { describe, expect, it } from 'vitest';
import { DefaultJsonSchemaValidator } from '../../src/mcp/sdk-shims.js';

// The bundle gives the MCP SDK this validator in place of its own copy of ajv (scripts/bundle.mjs).
describe('the JSON Schema validator the SDK checks elicitation answers with', () => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://example.test/answer',
    type: 'object',
    properties: { email: { type: 'string', format: 'email' }, age: { type: 'integer', minimum: 0 } },
    required: ['email'],
  };

  it('passes an answer that fits the schema, as given', () => {
    const check = new DefaultJsonSchemaValidator().getValidator<{ email: string }>(schema);
    expect(check({ email: 'a@example.test', age: 3 })).toEqual({
      valid: true,
      data: { email: 'a@example.test', age: 3 },
      errorMessage: undefined,
    });
  });

  it('refuses one that does not, saying each reason', () => {
    const check = new DefaultJsonSchemaValidator().getValidator(schema);
    const answer = check({ age: -1 });
    expect(answer).toMatchObject({ valid: false, data: undefined });
    expect(answer.errorMessage).toMatch(/must have required property 'email'/);
    expect(answer.errorMessage).toMatch(/must be >= 0/);
  });

  it('compiles a schema with the same $id twice', () => {
    const validator = new DefaultJsonSchemaValidator();
    validator.getValidator(schema);
    expect(validator.getValidator(schema)({ email: 'b@example.test' }).valid).toBe(true);
  });
});
