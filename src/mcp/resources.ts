import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type Server } from '@modelcontextprotocol/server';
import { callTool, type CallDeps } from '../capabilities/call/call.js';
import type { Capability, Mirror } from '../capabilities/capability.js';
import { CAPABILITIES } from '../capabilities/index.js';
import { errorBody, NotFound, SeleniumFlowError } from '../errors.js';
import type { Caller } from '../workspace/caller.js';
import { APP_RESOURCES, type announcesApps } from './apps.js';
import { FILE_RESOURCES } from './file-resources.js';
import { FLOW_COMPLETIONS, FLOW_RESOURCES } from './flow-resources.js';
import { SKILL_COMPLETIONS, SKILL_RESOURCES } from './skill-resources.js';

export type ResourceContent = { uri: string; mimeType: string; _meta?: Record<string, unknown> } & (
  { text: string } | { blob: string }
);

/**
 * A resource, or a family of them under a URI template (`{name}` matches one path segment).
 * A tool's `mirrors` make most of them; areas (flows, files) add the rest to RESOURCE_DEFINITIONS.
 */
export interface ResourceDefinition {
  name: string;
  title: string;
  description: string;
  mimeType: string;
  uri?: string;
  template?: string;
  read(deps: CallDeps, caller: Caller, uri: string, vars: Record<string, string>): Promise<ResourceContent[]>;
  /** an MCP App's document (apps.ts): listed only to a client that renders apps */
  app?: boolean;
  /** values for a template variable, for completion/complete */
  complete?(deps: CallDeps, caller: Caller, variable: string, prefix: string): Promise<string[]>;
}

type Completion = NonNullable<ResourceDefinition['complete']>;

/** Values for a template's variable, by template. */
const COMPLETIONS: Record<string, Completion> = { ...FLOW_COMPLETIONS, ...SKILL_COMPLETIONS };

/** A resource a tool mirrors reads through that tool, so both answer the same. */
function mirrorResource(capability: Capability, mirror: Mirror): ResourceDefinition {
  const mimeType = mirror.mimeType ?? 'application/json';
  const where = mirror.uri.includes('{') ? { template: mirror.uri } : { uri: mirror.uri };
  return {
    ...where,
    name: mirror.name ?? capability.name,
    title: mirror.title ?? capability.title,
    description: mirror.description ?? capability.description,
    mimeType,
    read: async (deps, caller, uri, vars) => {
      const result = await callTool(deps, capability, { ...mirror.args, ...vars }, caller);
      const text = mimeType === 'text/markdown' ? String(result.text) : JSON.stringify(result);
      return [{ uri, mimeType, text }];
    },
    complete: COMPLETIONS[mirror.uri],
  };
}

/**
 * Every resource: the mirrored ones from the table's rows, then the flow schema, the bytes of
 * files, the skill's references and the apps. The first match wins, so the files' folders (mirrors) come before `workspace://files/{name}`.
 */
export const RESOURCE_DEFINITIONS: ResourceDefinition[] = [
  ...CAPABILITIES.flatMap((capability) => capability.mirrors.map((mirror) => mirrorResource(capability, mirror))),
  ...FLOW_RESOURCES,
  ...FILE_RESOURCES,
  ...SKILL_RESOURCES,
  ...APP_RESOURCES,
];

export function listResources(apps = false) {
  return RESOURCE_DEFINITIONS.filter((r) => r.uri && (apps || !r.app)).map(
    ({ uri, name, title, description, mimeType }) => ({
      uri: uri ?? '',
      name,
      title,
      description,
      mimeType,
    }),
  );
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

/** The resources (workspace files, the skill, apps' pages) and completion of their names. */
export function serveResources(
  server: Server,
  deps: CallDeps,
  caller: Caller,
  log: (err: unknown) => void,
  apps: (ctx: Parameters<typeof announcesApps>[1]) => boolean,
): void {
  server.setRequestHandler('resources/list', (_request, ctx) => ({ resources: listResources(apps(ctx)) }));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: listResourceTemplates() }));
  server.setRequestHandler('resources/read', async (request) => {
    try {
      return { contents: await readResource(deps, caller, request.params.uri) };
    } catch (err) {
      throw resourceError(err, request.params.uri, log);
    }
  });
  server.setRequestHandler('completion/complete', async (request) => {
    const ref = request.params.ref;
    const values =
      ref.type === 'ref/resource'
        ? await completeResource(deps, caller, ref.uri, request.params.argument.name, request.params.argument.value)
        : [];
    return { completion: { values, total: values.length, hasMore: false } };
  });
}

/**
 * A resource read that fails is a JSON-RPC error. "Not found" is ResourceNotFoundError: the SDK
 * sends it as -32602 with data.uri on both protocol eras (what 2026-07-28 requires; SDK 2.x never
 * emits 2025-11-25's -32002). Other refusals keep their sentence; only a bug is -32603.
 */
function resourceError(err: unknown, uri: string, log: (err: unknown) => void): ProtocolError {
  if (err instanceof NotFound) {
    return new ResourceNotFoundError(uri, err.message);
  }
  if (err instanceof SeleniumFlowError) {
    return new ProtocolError(
      err.status < 500 ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError,
      err.message,
    );
  }
  log(err);
  return new ProtocolError(ProtocolErrorCode.InternalError, errorBody(err).body.error.message);
}
