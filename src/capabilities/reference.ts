import type { Capability } from './capability.js';
import { CAPABILITIES } from './index.js';
import { jsonSchemaOf } from './json-schema.js';

type JsonSchema = Record<string, unknown>;

/** docs/reference/tools.md, rendered from the capability table (npm run gen; a test checks it). */
export function renderToolReference(): string {
  const lines = [
    '# Tools',
    '',
    '<!-- Generated from src/capabilities by `npm run gen`. Do not edit by hand. -->',
    '',
    "Every tool is an MCP tool and an HTTP endpoint, one to one. Over HTTP the body is the tool's arguments as JSON",
    'and a 200 answers the same object as the MCP `structuredContent`. Errors: `{"error": {"code", "message"}}` (see the OpenAPI document).',
    '',
    '| tool | HTTP | kind | flow step |',
    '| --- | --- | --- | --- |',
    ...CAPABILITIES.map(
      (c) => `| [\`${c.name}\`](#${c.name}) | ${restOf(c)} | ${c.kind} | ${c.runnableInFlow ? 'yes' : 'no'} |`,
    ),
    '',
  ];
  for (const capability of CAPABILITIES) {
    lines.push(...renderTool(capability), '');
  }
  return lines.join('\n');
}

/** A row's REST route, or why it has none. */
function restOf(capability: Capability): string {
  return capability.http ? `\`${capability.http.method} ${capability.http.path}\`` : "no REST route (its app's button)";
}

function renderTool(capability: Capability): string[] {
  const input = jsonSchemaOf(capability.input, 'input');
  const output = jsonSchemaOf(capability.output, 'output');
  return [
    `## ${capability.name}`,
    '',
    `**${capability.title}** — ${capability.description}`,
    '',
    `${restOf(capability)} · ${capability.kind} · ${capability.runnableInFlow ? 'may be a flow step' : 'not a flow step'}`,
    '',
    ...propertyTable('Argument', input),
    '',
    ...propertyTable('Answer field', output),
  ];
}

function propertyTable(heading: string, schema: JsonSchema): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const names = Object.keys(properties);
  if (names.length === 0) {
    return [`${heading}s: none.`];
  }
  return [
    `| ${heading} | type | required | meaning |`,
    '| --- | --- | --- | --- |',
    ...names.map((name) => {
      const property = properties[name] ?? {};
      const description = typeof property.description === 'string' ? property.description : '';
      return `| \`${name}\` | ${typeOf(property)} | ${required.has(name) ? 'yes' : ''} | ${description.replace(/\|/g, '\\|')} |`;
    }),
  ];
}

function typeOf(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) {
    return schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' \\| ');
  }
  if (schema.const !== undefined) {
    return `\`${JSON.stringify(schema.const)}\``;
  }
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (variants) {
    return variants.map(typeOf).join(' \\| ');
  }
  if (schema.type === 'array') {
    const item = typeOf((schema.items ?? {}) as JsonSchema);
    // (string | null)[] is a list of either; string | null[] would read as a string or a list.
    return item.includes('|') ? `(${item})[]` : `${item}[]`;
  }
  if (schema.type === 'object' && schema.properties) {
    return `{${Object.keys(schema.properties).join(', ')}}`;
  }
  return typeof schema.type === 'string' ? schema.type : Array.isArray(schema.type) ? schema.type.join(' \\| ') : 'any';
}
