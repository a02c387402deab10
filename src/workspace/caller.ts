import { checkWorkspaceName, STDIO_WORKSPACE } from './names.js';
import { checkWorkspaceAllowed, type Principal } from './tokens.js';
import { mcpSessionDigest } from './mcp-sessions.js';

/**
 * Who is calling. `key` is the store key of a saved workspace; a caller without one is
 * stateless and must pass `session_id`. Never invent a key: a fresh id per call once leaked
 * one browser per tool call.
 */
export interface Caller {
  key?: string;
  /** The workspace's name where it has one a person can read (named or stdio). */
  workspace?: string;
  /** who holds the browsers this caller opens (a Principal's id): stateless handles answer only to it */
  owner?: string;
  /** aborted when the caller went away (its HTTP request closed): a browser opened for it is ended */
  abandoned?: AbortSignal;
  /** the HTTP request's id (Fastify's reqId), so its tool-call log line joins its request line */
  requestId?: string;
  /** this server's origin as the caller addressed it (its Host passed the guard): where an app reaches back */
  origin?: string;
  /** its token is one an MCP host holds for a person (Principal.hostHeld): its live app may take Control */
  hostHeld?: true;
}

const STDIO_KEY = 'stdio';
const NAMED = 'named:';

export const STDIO_CALLER: Caller = { key: STDIO_KEY, workspace: STDIO_WORKSPACE };

/** The caller a workspace name stands for (the admin API and signed links address workspaces by name). */
export function callerOfWorkspace(name: string): Caller & { key: string } {
  return { key: name === STDIO_WORKSPACE ? STDIO_KEY : `${NAMED}${name}`, workspace: name };
}

/**
 * Who a call turns behind: a saved workspace, or a stateless caller's browser (by the handle it
 * passed); undefined for a stateless call that names no browser.
 */
export function turnKeyOf(caller: Caller, sessionId?: string): string | undefined {
  return caller.key ? `workspace:${caller.key}` : sessionId ? `browser:${sessionId}` : undefined;
}

/** The workspace name a saved workspace's store key stands for; undefined for any other key. */
export function workspaceOfKey(key: string): string | undefined {
  return key === STDIO_KEY ? STDIO_WORKSPACE : key.startsWith(NAMED) ? key.slice(NAMED.length) : undefined;
}

export interface CallerSources {
  header?: string | string[];
  query?: string | null;
  /** who the bearer token says is asking; a workspace it may not use is a 403 */
  principal?: Principal;
}

export function resolveCaller(sources: CallerSources): Caller {
  const owner = sources.principal?.id;
  const held = sources.principal?.hostHeld ? { hostHeld: true as const } : {};
  const named = first(sources.header) ?? sources.query ?? undefined;
  if (named !== undefined) {
    const name = checkWorkspaceName(named);
    checkWorkspaceAllowed(sources.principal, name);
    return { ...callerOfWorkspace(name), owner, ...held };
  }
  return { owner, ...held };
}

/**
 * The caller of a request in an MCP session (an id this server issued, and the request's token
 * opened): a workspace of its own for the session, unless the request names one. The key is the
 * id's digest, so a store dump or the admin page shows no id a client could resume.
 */
export function sessionCaller(caller: Caller, sessionId: string): Caller {
  return caller.workspace !== undefined ? caller : { ...caller, key: `mcp:${mcpSessionDigest(sessionId)}` };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
