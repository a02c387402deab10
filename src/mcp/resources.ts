import { callTool, type CallDeps } from '../capabilities/call/call.js';
import { listSecrets } from '../capabilities/tools/secrets.js';
import { currentWorkspace } from '../capabilities/tools/workspace.js';
import { readSkill } from '../capabilities/skill.js';
import { NotFound } from '../errors.js';
import type { Caller } from '../workspace/caller.js';
import { FILE_RESOURCES } from './file-resources.js';
import { FLOW_RESOURCES } from './flow-resources.js';

export type ResourceContent = { uri: string; mimeType: string } & ({ text: string } | { blob: string });

/**
 * A resource, or a family of them under a URI template (`{name}` matches one path segment).
 * Areas (flows, files) add theirs to RESOURCE_DEFINITIONS; nothing else lists resources.
 */
export interface ResourceDefinition {
  name: string;
  title: string;
  description: string;
  mimeType: string;
  uri?: string;
  template?: string;
  read(deps: CallDeps, caller: Caller, uri: string, vars: Record<string, string>): Promise<ResourceContent[]>;
  /** values for a template variable, for completion/complete */
  complete?(deps: CallDeps, caller: Caller, variable: string, prefix: string): Promise<string[]>;
}

export const SKILL_URI = 'skill://selenium-flow/SKILL.md';
export const CURRENT_URI = 'workspace://current';
export const SECRETS_URI = 'secret://secrets';

export const RESOURCE_DEFINITIONS: ResourceDefinition[] = [
  {
    uri: SKILL_URI,
    name: 'selenium-flow skill',
    title: 'How to use selenium-flow',
    description: 'The loop, the tools, selectors and the two modes, in one page. Read it first.',
    mimeType: 'text/markdown',
    read: async (_deps, _caller, uri) => [{ uri, mimeType: 'text/markdown', text: await readSkill() }],
  },
  {
    uri: CURRENT_URI,
    name: 'current workspace',
    title: 'Current workspace',
    description: 'This caller’s workspace: its browser, window and last page. Reading it never opens a browser.',
    mimeType: 'application/json',
    read: async (deps, caller, uri) => [
      { uri, mimeType: 'application/json', text: JSON.stringify(await callTool(deps, currentWorkspace, {}, caller)) },
    ],
  },
  ...FLOW_RESOURCES,
  ...FILE_RESOURCES,
  {
    uri: SECRETS_URI,
    name: 'secrets',
    title: 'Secrets',
    description:
      'The secrets this workspace may type with write {selector, secret: {name, key}}: names, keys, descriptions, where each may be used. Never a value.',
    mimeType: 'application/json',
    read: async (deps, caller, uri) => [
      { uri, mimeType: 'application/json', text: JSON.stringify(await callTool(deps, listSecrets, {}, caller)) },
    ],
  },
];

export function listResources() {
  return RESOURCE_DEFINITIONS.filter((r) => r.uri).map(({ uri, name, title, description, mimeType }) => ({
    uri: uri ?? '',
    name,
    title,
    description,
    mimeType,
  }));
}

export function listResourceTemplates() {
  return RESOURCE_DEFINITIONS.filter((r) => r.template).map(({ template, name, title, description, mimeType }) => ({
    uriTemplate: template ?? '',
    name,
    title,
    description,
    mimeType,
  }));
}

export async function readResource(deps: CallDeps, caller: Caller, uri: string): Promise<ResourceContent[]> {
  for (const definition of RESOURCE_DEFINITIONS) {
    if (definition.uri === uri) {
      return definition.read(deps, caller, uri, {});
    }
    const vars = definition.template ? matchTemplate(definition.template, uri) : undefined;
    if (vars) {
      return definition.read(deps, caller, uri, vars);
    }
  }
  throw new NotFound(`No resource ${uri}; list them with resources/list and resources/templates/list.`);
}

export async function completeResource(
  deps: CallDeps,
  caller: Caller,
  template: string,
  variable: string,
  prefix: string,
): Promise<string[]> {
  const definition = RESOURCE_DEFINITIONS.find((r) => r.template === template);
  const values = (await definition?.complete?.(deps, caller, variable, prefix)) ?? [];
  return values.filter((v) => v.startsWith(prefix)).slice(0, 100);
}

/** `{name}` matches one URI segment, percent-decoded. */
export function matchTemplate(template: string, uri: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const match = new RegExp(`^${pattern}$`).exec(uri);
  if (!match) {
    return undefined;
  }
  try {
    return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? '')]));
  } catch {
    return undefined; // a malformed %-escape names no resource
  }
}
