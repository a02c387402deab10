import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { TASK_POLL_MS, TASK_TTL_MS, type ControlTask } from '../live/tasks.js';
import type { Capability } from '../capabilities/capability.js';
import type { CallDeps } from '../capabilities/call/contexts.js';
import type { Caller } from '../workspace/caller.js';
import { CONTROL_TASKS, settle, type RunTool, type TaskEra } from './tasks.js';

/**
 * 2025-11-25's experimental tasks, as that era's initialize answers them: a task-augmented
 * tools/call (await_control only), tasks/get, tasks/result, tasks/list and tasks/cancel. The task
 * is the same row in the live store as a 2026-07-28 task (live/tasks.ts); only the wire differs.
 */
const LEGACY_TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const STOPPING_TASK =
  'This replica of selenium-flow is stopping; call tasks/result again, and another replica (or this one, restarted) waits on: the task is kept.';

/** 2025-11-25's tasks, for a server that serves that era's client. */
export const LEGACY_TASKS: TaskEra = {
  // A 2025-11-25 request may declare the extension too (start, below): it is offered beside the era's own.
  capabilities: (deps) => ({
    ...CONTROL_TASKS.capabilities(deps),
    ...(deps.control?.tasks ? { tasks: LEGACY_TASKS_CAPABILITY } : {}),
  }),
  // Without the era's `task` param, a request whose _meta declares the extension (the SDK lifts
  // it on either era) gets that extension's task, as a 2026-07-28 request would.
  start: async (deps, capability, caller, call) =>
    asksForTask(call.params)
      ? startLegacyTask(deps, capability, caller)
      : CONTROL_TASKS.start(deps, capability, caller, call),
  serve: serveLegacyTasks,
};

/** Whether this 2025-11-25 tools/call asked to run as a task (its `task` param). */
function asksForTask(params: { task?: unknown }): boolean {
  return typeof params.task === 'object' && params.task !== null;
}

/**
 * A task for a task-augmented await_control, whether or not someone is in control (the client
 * asked for a task, so it gets one: with nobody in control the first tasks/get settles it).
 */
async function startLegacyTask(
  deps: CallDeps,
  capability: Capability,
  caller: Caller,
): Promise<{ content: []; task: ReturnType<typeof wire> } | undefined> {
  const control = deps.control;
  if (!capability.answersAsTaskWhileHeld || !control?.tasks || caller.workspace === undefined) {
    return undefined;
  }
  const task = await control.tasks.create(caller.workspace, caller.owner ?? '');
  // The SDK checks a tools/call result as a CallToolResult: an empty content list rides along.
  return { content: [], task: wire(task) };
}

function serveLegacyTasks(server: Server, deps: CallDeps, caller: Caller, runTool: RunTool): void {
  const params = z.object({ taskId: z.string() });
  const found = async (taskId: string): Promise<ControlTask> => {
    const task = await deps.control?.tasks?.get(taskId, caller.workspace, caller.owner ?? '');
    if (!task) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    }
    return task;
  };
  const now = async (taskId: string) => {
    const { task, statusMessage } = await settle(deps, await found(taskId), caller, runTool);
    return { task, statusMessage };
  };
  server.setRequestHandler('tasks/get', { params }, async ({ taskId }) => {
    const { task, statusMessage } = await now(taskId);
    return wire(task, statusMessage);
  });
  server.setRequestHandler('tasks/result', { params }, async ({ taskId }, ctx) => {
    // The era's rule: tasks/result waits for the task to end. The client's cancel ends the wait.
    const signal = (ctx as { mcpReq: { signal: AbortSignal } }).mcpReq.signal;
    for (;;) {
      const { task } = await now(taskId);
      if (task.status === 'completed' && task.result) {
        const { resultType: _era, ...result } = task.result;
        return { ...result, _meta: { [RELATED_TASK]: { taskId } } };
      }
      if (task.status !== 'working') {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task ${task.status}: it has no result.`);
      }
      // A replica that stops answers the wait: the task is in the shared store, and waits on elsewhere.
      const stopping = deps.control?.stopping;
      if (stopping?.aborted) {
        throw new ProtocolError(ProtocolErrorCode.InternalError, STOPPING_TASK);
      }
      await new Promise<void>((resolve, reject) => {
        // Each poll takes its listeners off again: a wait of hours must not pile one up per second.
        const settle = (cancelled: boolean) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', cancel);
          stopping?.removeEventListener('abort', wake);
          return cancelled ? reject(new Error('cancelled')) : resolve();
        };
        const cancel = () => settle(true);
        const wake = () => settle(false);
        const timer = setTimeout(wake, TASK_POLL_MS);
        signal.addEventListener('abort', cancel, { once: true });
        stopping?.addEventListener('abort', wake, { once: true });
      });
    }
  });
  server.setRequestHandler('tasks/list', { params: z.object({ cursor: z.string().optional() }) }, async () => {
    const open = await deps.control?.tasks?.open(caller.workspace, caller.owner ?? '');
    return { tasks: open ? [wire(open)] : [] };
  });
  server.setRequestHandler('tasks/cancel', { params }, async ({ taskId }) => {
    const task = await found(taskId);
    // The task ends, not the episode: the person keeps the browser until they hand back.
    return wire((await deps.control?.tasks?.cancel(task)) ?? task);
  });
}

/** A Task as 2025-11-25 has it: ttl and pollInterval in ms, no result inlined (tasks/result carries it). */
function wire(task: ControlTask, statusMessage?: string) {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(statusMessage ? { statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: TASK_TTL_MS,
    pollInterval: TASK_POLL_MS,
  };
}
