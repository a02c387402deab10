import type { z } from 'zod';
import { explainWebDriverError } from '../browser/errors.js';
import type { WebDriver } from 'selenium-webdriver';
import { readPageState, type PageState } from '../browser/page-state.js';
import { BadRequest } from '../errors.js';
import { filesOf, type Files } from '../files/files.js';
import { BrowserGone, translateGridError } from '../grid/grid.js';
import { SecretCall, type Secrets } from '../secrets/binding.js';
import type { Caller } from '../workspace/caller.js';
import type { Turns } from '../workspace/turns.js';
import type { Workspaces } from '../workspace/workspaces.js';
import type { BrowserContext, Capability, WorkspaceContext } from './define.js';
import type { CurrentWorkspace, WorkspaceView } from './workspace-view.js';
import type { FlowsService, FlowToolbox } from './flows-view.js';
import { capabilityNamed } from './index.js';
import { DEFAULT_CALL_TIMEOUT_MS, recoverCallersBrowser, withinDeadline } from './deadline.js';

export interface CallDeps {
  workspaces: Workspaces;
  turns: Turns;
  /** undefined when flows are off (no data directory) */
  flows?: FlowsService;
  /** downloads, screenshots and Files of every workspace */
  files: Files;
  /** the secrets catalogue and its audit; undefined: none configured */
  secrets?: Secrets;
  /** CALL_TIMEOUT in ms (default 60 s) */
  callTimeoutMs?: number;
}

/** Where a call comes from when it is a step of a flow. */
export interface CallContext {
  /** the flow and its step, for the audit of a secret the step binds */
  flow?: string;
  step?: number | string;
  /**
   * nothing will read the call's answer (a flow step whose report shows only a summary): an act
   * skips the reads it makes only to answer (the page it leaves, the value write reads back)
   */
  answerUnread?: boolean;
  /** the end of the flow run this step is part of (epoch ms): the step's deadline never passes it */
  deadline?: number;
}

export type ToolResult = Record<string, unknown>;

/**
 * The one path every call takes, from MCP, HTTP and (later) flow steps alike: validate,
 * check the mode, take the browser's turn, bind the browser, act, record the page.
 */
export async function callTool(
  deps: CallDeps,
  capability: Capability,
  rawArgs: unknown,
  caller: Caller,
  context: CallContext = {},
): Promise<ToolResult> {
  const args = parseArguments(capability, rawArgs);
  const sessionId = checkMode(capability, args, caller);
  const turnKey = turnKeyOf(caller, sessionId);
  const { answerUnread = false, deadline, ...step } = context;
  // Binds with the call's context, and screens every answer and error against the values typed into this browser.
  const secrets = new SecretCall(deps.secrets, { workspace: caller.workspace, ...step }, turnKey);
  const handle = () => runHandler(deps, capability, args, caller, { sessionId, secrets, answerUnread });
  const run = capability.boundsItself
    ? handle
    : () =>
        withinDeadline(
          capability,
          args,
          { callTimeoutMs: deps.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, until: deadline },
          handle,
          () => recoverCallersBrowser(deps.workspaces, caller, sessionId),
        );
  try {
    return turnKey && capability.takesTurn ? await deps.turns.run(turnKey, run) : await run();
  } catch (err) {
    throw secrets.screenError(explainWebDriverError(translateGridError(err)));
  } finally {
    secrets.end();
  }
}

/** The key calls on one browser take turns under (and its typed values are remembered by). */
export function turnKeyOf(caller: Caller, sessionId: string | undefined): string | undefined {
  return caller.key ? `workspace:${caller.key}` : sessionId ? `browser:${sessionId}` : undefined;
}

interface CallState {
  sessionId: string | undefined;
  secrets: SecretCall;
  answerUnread: boolean;
}

async function runHandler(
  deps: CallDeps,
  capability: Capability,
  args: Record<string, unknown>,
  caller: Caller,
  { sessionId, secrets, answerUnread }: CallState,
): Promise<ToolResult> {
  if (capability.browser === 'none') {
    const ctx: WorkspaceContext = {
      caller,
      workspace: workspaceView(deps, caller, sessionId),
      flows: deps.flows?.view(caller, flowToolbox(deps, caller, sessionId)),
      files: filesOf(deps.files, caller.workspace),
      secrets,
    };
    return secrets.screenAnswer(await capability.handler(args, ctx as BrowserContext & WorkspaceContext));
  }
  const browser = await deps.workspaces.attach(caller, sessionId, capability.browser === 'open');
  await secrets.adopt(browser.record);
  const files = filesOf(deps.files, caller.workspace);
  const ctx: BrowserContext = {
    driver: browser.driver,
    browserName: browser.browserName,
    caller,
    files,
    secrets,
    answerUnread,
  };
  try {
    const result = await capability.handler(args, ctx as BrowserContext & WorkspaceContext);
    secrets.noteIn(browser.record);
    if (capability.kind !== 'act') {
      if (caller.key) {
        // A read given a url (extract) may have moved the browser: remember where it is now.
        const page = args.url === undefined ? undefined : await readPageState(browser.driver);
        await deps.workspaces.touch(
          caller.key,
          page && !secrets.screen(page).withheld ? page : undefined,
          browser.record,
        );
      }
      const { shown, withheld } = secrets.screen(result);
      return secrets.screenAnswer(shown, withheld);
    }
    const { page, rest } = await pageAfter(browser.driver, result, answerUnread);
    if (!page) {
      if (caller.key) {
        await deps.workspaces.touch(caller.key, undefined, browser.record);
      }
      return secrets.screenAnswer(rest);
    }
    // A page whose address or title carries a typed secret is neither answered nor remembered.
    const { shown, withheld } = secrets.screen(page);
    if (caller.key) {
      await deps.workspaces.touch(caller.key, withheld ? undefined : page, browser.record);
    }
    return secrets.screenAnswer(
      { ...shown, ...rest, ...(page.dialog ? { url: browser.record?.url ?? page.url } : {}) },
      withheld,
    );
  } catch (err) {
    const translated = translateGridError(err);
    if (translated instanceof BrowserGone && caller.key) {
      await deps.workspaces.detach(caller.key);
    }
    throw translated;
  }
}

/**
 * Where the browser is after an act. An act that read it in a round trip it made anyway (write,
 * with the value it reads back) answers url and title; they are taken out of its result here,
 * so they are screened like any page state. Otherwise the page is read now, unless nobody will
 * read it.
 */
async function pageAfter(
  driver: WebDriver,
  result: ToolResult,
  unread: boolean,
): Promise<{ page?: PageState; rest: ToolResult }> {
  const { url, title, ...rest } = result;
  if (typeof url === 'string' && typeof title === 'string') {
    return { page: { url, title }, rest };
  }
  return { page: unread ? undefined : await readPageState(driver), rest: result };
}

/** Rejects, never repairs: an argument dropped silently is an instruction ignored silently. */
export function parseArguments(capability: Capability, rawArgs: unknown): Record<string, unknown> {
  const parsed = capability.input.safeParse(rawArgs ?? {});
  if (parsed.success) {
    refuseLoneSurrogates(parsed.data, capability.name);
    return parsed.data;
  }
  throw new BadRequest(describeIssue(capability, parsed.error.issues[0], rawArgs));
}

function describeIssue(capability: Capability, issue: z.core.$ZodIssue | undefined, rawArgs: unknown): string {
  const known = Object.keys(capability.input.shape).join(', ') || 'none';
  if (!issue) {
    return `Invalid arguments for ${capability.name}.`;
  }
  const where = issue.path.length > 0 ? issue.path.join('.') : '';
  if (issue.code === 'unrecognized_keys' && where === '' && issue.keys.includes('secret') && capability.secretRefusal) {
    return capability.secretRefusal;
  }
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `"${k}"`).join(', ');
    const scope = where ? ` in ${where}` : '';
    return `Unknown argument ${keys}${scope} for ${capability.name}; its arguments are: ${known}.`;
  }
  if (where !== '' && issue.code !== 'custom' && valueAt(rawArgs, issue.path) === undefined) {
    return `Missing argument ${where} for ${capability.name}; its arguments are: ${known}.`;
  }
  if (issue.code === 'invalid_type' && where === '') {
    return `The arguments of ${capability.name} must be a JSON object; its arguments are: ${known}.`;
  }
  if (issue.code === 'invalid_value' && 'values' in issue) {
    const values = issue.values.map((v) => JSON.stringify(v)).join(', ');
    return `${where} must be one of ${values}.`;
  }
  const message = issue.message.endsWith('.') ? issue.message : `${issue.message}.`;
  return where ? `${where}: ${message}` : message;
}

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * JSON may carry half a UTF-16 surrogate pair ("\ud800"), which no file system, URL or page
 * keeps as sent (it becomes U+FFFD on the way): a name saved that way can never be found again.
 */
function refuseLoneSurrogates(args: Record<string, unknown>, tool: string): void {
  // A stack, not recursion: a document or params object may nest deeper than the call stack.
  const stack: [unknown, string][] = [[args, '']];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [value, path] = next;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) {
        throw new BadRequest(
          `${path || 'An argument name'} of ${tool} holds half of a UTF-16 surrogate pair, which is not text; send well-formed Unicode.`,
        );
      }
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const at = path ? `${path}.${key}` : key;
        stack.push([key, path], [item, at]);
      }
    }
  }
}

/** The value at a zod issue's path, to tell a missing argument from a wrong one. */
export function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (node, key) =>
      node !== null && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined,
    value,
  );
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

/** A flow's steps are ordinary calls by the same caller (a stateless one lends its session_id). */
function flowToolbox(deps: CallDeps, caller: Caller, sessionId: string | undefined): FlowToolbox {
  return {
    // context: the flow and step, for the audit of a secret the step binds
    call: async (tool, args, context?: CallContext) => {
      const capability = capabilityNamed(tool);
      if (!capability) {
        throw new BadRequest(`Unknown tool ${tool}.`);
      }
      return callTool(
        deps,
        capability,
        caller.key || !sessionId ? args : { ...args, session_id: sessionId },
        caller,
        context,
      );
    },
    currentUrl: async () => (await screenedPage(deps, caller, sessionId))?.shown.url ?? null,
    // Steps skip reads nobody makes, so the record is behind until the run's end page is read:
    // remembered like any call's page, in the browser's turn, unless a secret is in it.
    endPage: async () => {
      const turnKey = turnKeyOf(caller, sessionId);
      const read = async () => {
        const screened = await screenedPage(deps, caller, sessionId);
        if (screened && caller.key) {
          await deps.workspaces.touch(caller.key, screened.withheld ? undefined : screened.shown, screened.record);
        }
        return screened?.shown ?? null;
      };
      return turnKey ? deps.turns.run(turnKey, read) : read();
    },
  };
}

/** Where the caller's browser is, as much of it as may be shown (a secret typed earlier may be in it). */
async function screenedPage(deps: CallDeps, caller: Caller, sessionId: string | undefined) {
  const { page, record } = await deps.workspaces.currentPage(caller, sessionId);
  return (
    page && {
      ...new SecretCall(deps.secrets, { workspace: caller.workspace }, turnKeyOf(caller, sessionId)).screen(page),
      record,
    }
  );
}

function workspaceView(deps: CallDeps, caller: Caller, sessionId: string | undefined): WorkspaceView {
  const { workspaces } = deps;
  return {
    open: async (kind, window) => {
      const opened = await workspaces.open(caller, kind, window);
      const page = await readPageState(opened.driver);
      // The opaque handle, never the Grid id; a saved workspace answers none (it remembers its browser).
      return { sessionId: opened.handle, url: page.url, title: page.title };
    },
    end: async () => ({ ended: await workspaces.end(caller, sessionId) }),
    describe: () => describeWorkspace(deps, caller, sessionId),
  };
}

async function describeWorkspace(
  deps: CallDeps,
  caller: Caller,
  sessionId: string | undefined,
): Promise<CurrentWorkspace> {
  const { workspaces } = deps;
  const flowsHere = async () =>
    deps.flows
      ? (await deps.flows.view(caller, flowToolbox(deps, caller, sessionId)).list(false)).map((f) => f.name)
      : [];
  if (!caller.key) {
    const held = sessionId ? await workspaces.describeHandle(caller, sessionId) : undefined;
    return {
      workspace: null,
      mode: 'stateless',
      browser: sessionId && held?.alive ? { session_id: sessionId, ...held } : null,
      window: null,
      url: null,
      title: null,
      flows_here: await flowsHere(),
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
    browser: record?.gridId && alive ? { kind: record.browser, version: record.browserVersion ?? '', alive } : null,
    window: record ? record.window : null,
    url: record?.url ?? null,
    title: record?.title ?? null,
    flows_here: await flowsHere(),
  };
}
