import { ProtocolError, ProtocolErrorCode, type Server, type ServerCapabilities } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { said } from '../live/control-copy.js';
import { TASK_POLL_MS, TASK_TTL_MS, type ControlTask } from '../live/tasks.js';
import { ROLES } from '../capabilities/index.js';
import type { Capability } from '../capabilities/capability.js';
import type { CallDeps } from '../capabilities/call/contexts.js';
import type { Caller } from '../workspace/caller.js';

/** The 2026-07-28 Tasks extension (SEP-2663), as a client declares it in a request's capabilities. */
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

type ToolAnswer = { content: unknown[]; structuredContent?: unknown; isError?: boolean };
export type RunTool = (capability: Capability, args: unknown, caller: Caller) => Promise<ToolAnswer>;

const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

interface RequestContext {
  mcpReq: { envelope?: { [CLIENT_CAPABILITIES]?: { extensions?: Record<string, unknown> } } };
}

/** A tools/call as a task era reads it: its params (2025-11-25's `task`) and its context (2026-07-28's envelope). */
export interface TaskCall {
  params: { task?: unknown };
  ctx: RequestContext;
}

/** What tools/call answers instead of the tool's result: a task handle, each era's shape. */
export type TaskHandle = { content: [] } & Record<string, unknown>;

/**
 * One protocol era's tasks, for await_control: what the server declares, when a tools/call is
 * answered with a task, and the tasks/* methods. The server picks one by its era, once
 * (server.ts); both eras keep the same task in the live store and settle it alike (settle).
 */
export interface TaskEra {
  /** spread into the server's capabilities */
  capabilities(deps: CallDeps): Pick<ServerCapabilities, 'extensions' | 'tasks'>;
  /** a task handle instead of the call's answer; undefined: the call goes on as ever */
  start(deps: CallDeps, capability: Capability, caller: Caller, call: TaskCall): Promise<TaskHandle | undefined>;
  serve(server: Server, deps: CallDeps, caller: Caller, runTool: RunTool): void;
}

/** 2026-07-28's Tasks extension (SEP-2663): the era a server without a 2025-11-25 client serves. */
export const CONTROL_TASKS: TaskEra = {
  // await_control answers as a task to a client that declares the extension
  capabilities: (deps) => (deps.control?.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
  start: async (deps, capability, caller, { ctx }) =>
    declaresTasks(ctx) ? startControlTask(deps, capability, caller) : undefined,
  serve: serveControlTasks,
};

/**
 * Whether this request's client takes a task for an answer: it named the extension in the
 * request's own capabilities (2026-07-28 carries them on every request). A 2025-11-25 client
 * has no such envelope and keeps the blocking call with progress.
 */
function declaresTasks(ctx: RequestContext): boolean {
  const extensions = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES]?.extensions;
  return extensions !== undefined && Object.hasOwn(extensions, TASKS_EXTENSION);
}

/**
 * A row that answers as a task while held (await_control), for a client that declares tasks,
 * while a person's Control applies: a task handle at once instead of a held request. Undefined
 * (the call goes on as ever) for any other row, with nobody in control (it answers at once), or
 * without a workspace.
 */
async function startControlTask(
  deps: CallDeps,
  capability: Capability,
  caller: Caller,
): Promise<{ content: []; resultType: 'task' } | undefined> {
  const control = deps.control;
  if (!capability.answersAsTaskWhileHeld || !control?.tasks || caller.workspace === undefined) {
    return undefined;
  }
  const episode = await control.controls.episode(caller.workspace);
  if (!episode) {
    return undefined;
  }
  const task = await control.tasks.create(caller.workspace, caller.owner ?? '');
  // The SDK checks every tools/call result as a CallToolResult, content and all: the handle
  // carries an empty content list beside it, which a client of the extension reads past.
  return { content: [], resultType: 'task', ...wireTask(task, waiting(episode.who)) };
}

/**
 * tasks/get, tasks/update and tasks/cancel for await_control's tasks (the SDK lets a server own
 * these on 2026-07-28). All three answer -32021 to a client that did not declare the extension
 * (SEP-2575's missing capability), never -32601: the methods exist, that client may not use them.
 */
function serveControlTasks(server: Server, deps: CallDeps, caller: Caller, runTool: RunTool): void {
  const params = z.object({ taskId: z.string() });
  const found = async (taskId: string, ctx: RequestContext): Promise<ControlTask> => {
    if (!declaresTasks(ctx)) {
      throw new ProtocolError(
        ProtocolErrorCode.MissingRequiredClientCapability,
        `Declare the ${TASKS_EXTENSION} extension in the request's client capabilities to use tasks.`,
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      );
    }
    const task = await deps.control?.tasks?.get(taskId, caller.workspace, caller.owner ?? '');
    if (!task) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    }
    return task;
  };
  server.setRequestHandler('tasks/get', { params }, async ({ taskId }, ctx) => {
    const task = await found(taskId, ctx);
    return { resultType: 'complete', ...(await current(deps, task, caller, runTool)) };
  });
  // An await_control task never asks its client for input (its one input is the person's hand-back).
  server.setRequestHandler('tasks/update', { params }, async ({ taskId }, ctx) => {
    await found(taskId, ctx);
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'This task asks for no input; poll it with tasks/get until the person hands back.',
    );
  });
  server.setRequestHandler('tasks/cancel', { params }, async ({ taskId }, ctx) => {
    const task = await found(taskId, ctx);
    // The task ends, not the episode: the person keeps the browser until they hand back.
    await deps.control?.tasks?.cancel(task);
    return { resultType: 'complete' };
  });
}

/**
 * The task as it stands: working while the person holds on; after the hand-back, settled by
 * the first poll that claims it, which runs await_control itself (nobody is in control now, so
 * it answers at once with who, how long, the pages and the page now).
 */
async function current(deps: CallDeps, task: ControlTask, caller: Caller, runTool: RunTool) {
  const settled = await settle(deps, task, caller, runTool);
  return wireTask(settled.task, settled.statusMessage);
}

/** The task as it stands, settled if the person has handed back (both eras' tasks/get read it). */
export async function settle(
  deps: CallDeps,
  task: ControlTask,
  caller: Caller,
  runTool: RunTool,
): Promise<{ task: ControlTask; statusMessage?: string }> {
  const control = deps.control;
  if (task.status !== 'working' || !control?.tasks) {
    return { task };
  }
  const episode = await control.controls.episode(task.workspace);
  if (episode) {
    return { task, statusMessage: waiting(episode.who) };
  }
  if (!(await control.tasks.claim(task.taskId))) {
    // another poll is settling it this moment: the next poll reads its result
    return { task, statusMessage: 'handed back; reading the page' };
  }
  try {
    // A task's record does not name its tool: it settles by calling the one row that answers as a task.
    const answer = await runTool(ROLES.awaitsControl, {}, caller);
    // inlined as the 2026-07-28 wire has a tools/call result: with its resultType
    return { task: await control.tasks.complete(task, { ...answer, resultType: 'complete' }) };
  } catch (err) {
    await control.tasks.unclaim(task.taskId);
    throw err;
  }
}

function waiting(who: string): string {
  return `waiting for ${said(who)} to hand back`;
}

/** A Task as the extension's wire has it (DetailedTask: the result inlined once completed). */
function wireTask(task: ControlTask, statusMessage?: string) {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(statusMessage ? { statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: TASK_TTL_MS,
    pollIntervalMs: TASK_POLL_MS,
    ...(task.status === 'completed' && task.result ? { result: task.result } : {}),
  };
}
