import { jsonSchemaOf, type ObjectSchema } from '../capabilities/json-schema.js';
import { CAPABILITIES, MIRROR_TOOLS } from '../capabilities/index.js';
import { annotationsOf, type Capability } from '../capabilities/define.js';

/** A tool as tools/list shows it, rendered once from the capability table. */
export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: ObjectSchema;
  outputSchema: ObjectSchema;
  annotations: Record<string, unknown>;
}



export function toListedTool(capability: Capability): ListedTool {
  return {
    name: capability.name,
    title: capability.title,
    description: capability.description,
    inputSchema: jsonSchemaOf(capability.input, 'input'),
    outputSchema: jsonSchemaOf(capability.output, 'output'),
    annotations: annotationsOf(capability),
  };
}

/** The list is the same for every caller: a list that varies per connection is forbidden. */
export function listedTools(mirrorTools: boolean): ListedTool[] {
  return CAPABILITIES.filter((c) => mirrorTools || !MIRROR_TOOLS.has(c.name)).map(toListedTool);
}
