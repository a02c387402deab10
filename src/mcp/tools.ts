import { jsonSchemaOf, type ObjectSchema } from '../capabilities/json-schema.js';
import { CAPABILITIES, MIRROR_TOOLS } from '../capabilities/index.js';
import { annotationsOf, type Capability } from '../capabilities/capability.js';

/**
 * A tool as tools/list shows it, rendered once from the capability table. No outputSchema:
 * results still carry structuredContent, and its schema is published in the OpenAPI document
 * and docs/reference; in tools/list it would be 15 KB that every client reads on every
 * connection and that no model is shown (the same choice as Playwright's and Chrome
 * DevTools' MCP servers).
 */
export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: ObjectSchema;
  annotations: Record<string, boolean>;
}

export function toListedTool(capability: Capability): ListedTool {
  return {
    name: capability.name,
    title: capability.title,
    description: capability.description,
    inputSchema: listedSchema(capability),
    annotations: annotationsOf(capability),
  };
}

// Rules a caller need not plan around, because the server refuses past each with a sentence that
// says the rule: bounds (a 4,096-character selector, a 0–60 s wait), base64's pattern, "no other
// argument", "exactly one of css or xpath". tools/list is read on every connection and held to a
// 12,000-byte budget (test/unit/tools-list.test.ts); the OpenAPI document keeps every keyword.
const UNLISTED_KEYWORDS = new Set([
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
  'additionalProperties',
  'pattern',
  'minimum',
  'maximum',
  'format',
  // JSON object keys are strings already
  'propertyNames',
]);

/**
 * Arguments a dozen tools share, described once, in the server's instructions (and in the skill),
 * instead of in every tool that takes them: 17 session_ids and 9 wait_timeouts would otherwise
 * repeat the same words.
 */
export const SHARED_ARGUMENTS: Readonly<Record<string, string>> = {
  selector: '{"css": "…"} or {"xpath": "…"}, exactly one; or a list of up to 5 of those, the first that matches wins',
  wait_timeout: 'seconds to wait for the element (default 5, at most 60)',
  session_id: 'only without a workspace (stateless): the handle open_session answered',
};

/** A tool's input schema as tools/list shows it: the table's schema without what the server says itself. */
export function listedSchema(capability: Capability): ObjectSchema {
  const schema = lean(jsonSchemaOf(capability.input, 'input')) as ObjectSchema;
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  for (const name of Object.keys(SHARED_ARGUMENTS)) {
    const property = properties?.[name];
    if (property) {
      const { description: _said, ...rest } = property;
      properties[name] = rest;
    }
  }
  return schema;
}

function lean(schema: unknown): unknown {
  if (Array.isArray(schema)) {
    return schema.map(lean);
  }
  if (schema === null || typeof schema !== 'object') {
    return schema;
  }
  // "One, or a list of the same": the list's items would repeat the one in full (a selector list
  // doubled the selector in a dozen tools); the server checks them and says how when they are wrong.
  const choice = 'anyOf' in schema && Array.isArray(schema.anyOf) ? oneOrList(schema.anyOf) : undefined;
  if (choice) {
    return { anyOf: [lean(choice), { type: 'array' }] };
  }
  // An enum says its type already.
  const enumerated = 'enum' in schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !UNLISTED_KEYWORDS.has(key) && !(enumerated && key === 'type'))
      .map(([key, value]) => [key, key === 'properties' ? mapValues(value, lean) : lean(value)]),
  );
}

/** The X of `anyOf: [X, {type: array, items: X}]`, else undefined. */
function oneOrList(options: unknown[]): unknown {
  const [one, list] = options as [unknown, { type?: unknown; items?: unknown } | undefined];
  return options.length === 2 && list?.type === 'array' && JSON.stringify(list.items) === JSON.stringify(one)
    ? one
    : undefined;
}

function mapValues(value: unknown, f: (v: unknown) => unknown): unknown {
  return value !== null && typeof value === 'object'
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, f(v)]))
    : value;
}

/** The list is the same for every caller: a list that varies per connection is forbidden. */
export function listedTools(mirrorTools: boolean): ListedTool[] {
  return CAPABILITIES.filter((c) => mirrorTools || !MIRROR_TOOLS.has(c.name)).map(toListedTool);
}
