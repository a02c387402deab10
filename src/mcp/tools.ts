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
    inputSchema: jsonSchemaOf(capability.input, 'input'),
    annotations: annotationsOf(capability),
  };
}

/** The list is the same for every caller: a list that varies per connection is forbidden. */
export function listedTools(mirrorTools: boolean): ListedTool[] {
  return CAPABILITIES.filter((c) => mirrorTools || !MIRROR_TOOLS.has(c.name)).map(toListedTool);
}
