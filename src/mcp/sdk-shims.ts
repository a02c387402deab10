import process from 'node:process';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/server';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { ajv2020 } from '../lazy.js';

/**
 * What the MCP SDK's `Server` checks a client's elicitation answer with, against the schema it
 * asked with. The SDK's own (its Node shims) is a copy of ajv and ajv-formats bundled into the
 * SDK, ~45 kB of our packed package, where this package depends on ajv anyway:
 * scripts/bundle.mjs points the SDK's `@modelcontextprotocol/server/_shims` here, and
 * buildMcpServer hands each Server one of these, so a run from src/ (tsx, the tests) checks as
 * the bundle does. One per Server, as the SDK's: ajv keeps every schema it compiles for its
 * lifetime.
 */
export class DefaultJsonSchemaValidator implements jsonSchemaValidator {
  private ajv: Ajv2020 | undefined;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    // The SDK's options, less format checks: ajv-formats is not a dependency of ours.
    const ajv = (this.ajv ??= new (ajv2020().Ajv2020)({
      strict: false,
      validateSchema: false,
      validateFormats: false,
      allErrors: true,
      logger: false,
    }));
    const check = (typeof schema.$id === 'string' ? ajv.getSchema<T>(schema.$id) : undefined) ?? ajv.compile<T>(schema);
    return (input) =>
      check(input)
        ? { valid: true, data: input, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: ajv.errorsText(check.errors) };
  }
}

/** The SDK's stdio transport reads stdin and writes stdout through this. */
export { process };
