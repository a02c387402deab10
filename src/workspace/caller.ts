import { BadRequest } from '../errors.js';
import { WORKSPACE_NAME_RULE, workspaceName } from './names.js';

/**
 * Who is calling. `key` is the store key of a saved workspace; a caller without one is
 * stateless and must pass `session_id`. Never invent a key: a fresh id per call once leaked
 * one browser per tool call.
 */
export interface Caller {
  key?: string;
  /** The workspace's name where it has one a person can read (named or stdio). */
  workspace?: string;
}

export const STDIO_CALLER: Caller = { key: 'stdio', workspace: '_stdio' };
export const STATELESS_CALLER: Caller = {};

/** The caller a workspace name stands for (the admin API and signed links address workspaces by name). */
export function callerOfWorkspace(name: string): Caller & { key: string } {
  return name === STDIO_CALLER.workspace ? { key: 'stdio', workspace: name } : { key: `named:${name}`, workspace: name };
}

export interface CallerSources {
  header?: string | string[];
  query?: string | null;
  mcpSessionId?: string | string[];
}

export function resolveCaller(sources: CallerSources): Caller {
  const named = first(sources.header) ?? sources.query ?? undefined;
  if (named !== undefined) {
    const parsed = workspaceName.safeParse(named);
    if (!parsed.success) {
      throw new BadRequest(`Invalid workspace name: ${WORKSPACE_NAME_RULE}; rename it and call again.`);
    }
    return { key: `named:${parsed.data}`, workspace: parsed.data };
  }
  const mcpSession = first(sources.mcpSessionId);
  if (mcpSession) {
    return { key: `mcp:${mcpSession}` };
  }
  return STATELESS_CALLER;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
