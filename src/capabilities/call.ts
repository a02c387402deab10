import type { z } from 'zod';
import { explainWebDriverError } from '../browser/errors.js';
import { readPageState } from '../browser/page-state.js';
import { BadRequest } from '../errors.js';
import { BrowserGone, translateGridError } from '../grid/grid.js';
import type { Caller } from '../workspace/caller.js';
import type { Turns } from '../workspace/turns.js';
import type { Workspaces } from '../workspace/workspaces.js';
import type { BrowserContext, Capability, WorkspaceContext } from './define.js';
import type { CurrentWorkspace, WorkspaceView } from './workspace-view.js';

export interface CallDeps {
  workspaces: Workspaces;
  turns: Turns;
  dataDir: string | undefined;
}

export type ToolResult = Record<string, unknown>;

/**
 * The one path every call takes, from MCP, HTTP and (later) flow steps alike: validate,
 * check the mode, take the browser's turn, bind the browser, act, record the page.
 */
export async function callTool(deps: CallDeps, capability: Capability, rawArgs: unknown, caller: Caller): Promise<ToolResult> {
  const args = parseArguments(capability, rawArgs);
  const sessionId = checkMode(capability, args, caller);
  const turnKey = caller.key ? `workspace:${caller.key}` : sessionId ? `browser:${sessionId}` : undefined;
  const run = () => runHandler(deps, capability, args, caller, sessionId);
  try {
    return turnKey ? await deps.turns.run(turnKey, run) : await run();
  } catch (err) {
    throw explainWebDriverError(translateGridError(err));
  }
}

async function runHandler(
  deps: CallDeps,
  capability: Capability,
  args: Record<string, unknown>,
  caller: Caller,
  sessionId: string | undefined,
): Promise<ToolResult> {
  if (capability.browser === 'none') {
    const ctx = { caller, workspace: workspaceView(deps, caller, sessionId), args: { session_id: sessionId } };
    return capability.handler(args, ctx as BrowserContext & WorkspaceContext);
  }
  const browser = await deps.workspaces.attach(caller, sessionId, capability.browser === 'open');
  const ctx: BrowserContext = { driver: browser.driver, browserName: browser.browserName, caller, dataDir: deps.dataDir };
  try {
    const result = await capability.handler(args, ctx as BrowserContext & WorkspaceContext);
    if (capability.kind !== 'act') {
      if (caller.key) {
        await deps.workspaces.touch(caller.key, undefined);
      }
      return result;
    }
    const page = await readPageState(browser.driver);
    if (caller.key) {
      await deps.workspaces.touch(caller.key, page);
    }
    return { ...page, ...result, ...(page.dialog ? { url: (await lastUrl(deps, caller)) ?? page.url } : {}) };
  } catch (err) {
    const translated = translateGridError(err);
    if (translated instanceof BrowserGone && caller.key) {
      await deps.workspaces.detach(caller.key);
    }
    throw translated;
  }
}

async function lastUrl(deps: CallDeps, caller: Caller): Promise<string | undefined> {
  return caller.key ? (await deps.workspaces.record(caller.key))?.url : undefined;
}

/** Rejects, never repairs: an argument dropped silently is an instruction ignored silently. */
export function parseArguments(capability: Capability, rawArgs: unknown): Record<string, unknown> {
  const parsed = capability.input.safeParse(rawArgs ?? {});
  if (parsed.success) {
    return parsed.data;
  }
  throw new BadRequest(describeIssue(capability, parsed.error.issues[0]));
}

function describeIssue(capability: Capability, issue: z.core.$ZodIssue | undefined): string {
  const known = Object.keys(capability.input.shape).join(', ') || 'none';
  if (!issue) {
    return `Invalid arguments for ${capability.name}.`;
  }
  const where = issue.path.length > 0 ? issue.path.join('.') : '';
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `"${k}"`).join(', ');
    const scope = where ? ` in ${where}` : '';
    return `Unknown argument ${keys}${scope} for ${capability.name}; its arguments are: ${known}.`;
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) {
    return `Missing argument ${where} for ${capability.name}; its arguments are: ${known}.`;
  }
  if (issue.code === 'invalid_type' && where === '' ) {
    return `The arguments of ${capability.name} must be a JSON object; its arguments are: ${known}.`;
  }
  if (issue.code === 'invalid_value' && 'values' in issue) {
    const values = issue.values.map((v) => JSON.stringify(v)).join(', ');
    return `${where} must be one of ${values}.`;
  }
  const message = issue.message.endsWith('.') ? issue.message : `${issue.message}.`;
  return where ? `${where}: ${message}` : message;
}

/** saved: the server remembers the browser, so a session_id is a mistake; stateless: required. */
function checkMode(capability: Capability, args: Record<string, unknown>, caller: Caller): string | undefined {
  const sessionId = typeof args.session_id === 'string' ? args.session_id : undefined;
  delete args.session_id;
  if (caller.key && sessionId !== undefined) {
    throw new BadRequest(
      `session_id is only for stateless callers; this call names workspace ${caller.workspace ?? caller.key}, whose browser the server remembers, so drop session_id.`,
    );
  }
  if (!caller.key && capability.takesSessionId && sessionId === undefined && capability.name !== 'current_workspace') {
    throw new BadRequest(
      `${capability.name} needs a browser: pass session_id (the id open_session returned), or name a workspace with the X-Workspace header or ?workspace=… so the server remembers it.`,
    );
  }
  return sessionId;
}

function workspaceView(deps: CallDeps, caller: Caller, sessionId: string | undefined): WorkspaceView {
  const { workspaces } = deps;
  return {
    open: async (kind, window) => {
      const opened = await workspaces.open(caller, kind, window);
      return { sessionId: opened.gridId, url: opened.page.url, title: opened.page.title };
    },
    end: async () => ({ ended: await workspaces.end(caller, sessionId) }),
    describe: () => describeWorkspace(workspaces, caller, sessionId),
  };
}

async function describeWorkspace(workspaces: Workspaces, caller: Caller, sessionId: string | undefined): Promise<CurrentWorkspace> {
  if (!caller.key) {
    const alive = sessionId ? await workspaces.isAlive(sessionId) : false;
    return {
      workspace: null,
      mode: 'stateless',
      browser: sessionId ? { session_id: sessionId, kind: 'chrome', version: '', alive } : null,
      window: null,
      url: null,
      title: null,
    };
  }
  const record = await workspaces.record(caller.key);
  const alive = record?.gridId ? await workspaces.isAlive(record.gridId) : false;
  if (record?.gridId && !alive) {
    await workspaces.detach(caller.key, record);
  }
  return {
    workspace: caller.workspace ?? null,
    mode: 'saved',
    browser:
      record?.gridId && alive
        ? { session_id: record.gridId, kind: record.browser, version: record.browserVersion ?? '', alive }
        : null,
    window: record ? record.window : null,
    url: record?.url ?? null,
    title: record?.title ?? null,
  };
}
