import { Server } from '@modelcontextprotocol/server';
import type { CallDeps } from '../capabilities/call/call.js';
import type { Caller } from '../workspace/caller.js';
import { flowToolsFor, affects, type FlowToolOptions } from './flow-tools.js';
import { SHARED_ARGUMENTS, type ListedTool } from './tools.js';
import { serveResources } from './resources.js';
import { LEGACY_TASKS } from './legacy-tasks.js';
import { announcesApps, toolsFor, type AppClient } from './apps.js';
import { controlRefusal } from '../live/control-policy.js';
import { CONTROL_TASKS, type TaskEra } from './tasks.js';
import { serveToolCall, toolRunner } from './tool-call.js';
import { DefaultJsonSchemaValidator } from './sdk-shims.js';

export interface McpOptions {
  version: string;
  tools: ListedTool[];
  log: (err: unknown) => void;
  flowTools?: FlowToolOptions;
  /**
   * this instance lives as long as its connection (stdio), so it tells the client itself when
   * its flow tools change; a per-request instance (HTTP) leaves that to the change streams
   * (list-changed.ts): 2026-07-28's listen streams and 2025-11-25's GET stream
   */
  connection?: boolean;
  /** the protocol era this instance serves (the SDK says, per HTTP request; stdio: the connection's) */
  era?: 'legacy' | 'modern';
  /** the extensions this client announced at initialize, kept by its HTTP session (2025-11-25) */
  announced?: readonly string[];
  /** why this server has no Grid (a stdio start that could not run one): each call that needs a browser answers it */
  noGrid?: string;
  /** after each tools/list answer: a client that has its tools has started (ops/warm-up.ts) */
  onToolsListed?: () => void;
}

const NO_FLOW_TOOLS: FlowToolOptions = { enabled: false, max: 0 };

/** tools/list says what its flow tools cost under this key of its _meta. */
export const FLOW_TOOLS_META = 'selenium-flow/flow-tools';

/** Said once per connection: what tools/list leaves out of every tool that shares an argument. */
const INSTRUCTIONS = [
  'Drive a real browser on a Selenium Grid. Read the selenium_flow_skill tool (or the skill://selenium-flow/SKILL.md resource) first.',
  'Arguments many tools share:',
  ...Object.entries(SHARED_ARGUMENTS).map(([name, said]) => `- ${name}: ${said}`),
].join('\n');

/**
 * One MCP server instance for one caller. It is cheap: the tool list is rendered once at
 * boot, and every call goes through the same call path as HTTP. It reads as a table of contents,
 * as http/app.ts does: what it declares, then each method's module (tools/call: tool-call.ts; the
 * era's tasks: tasks.ts or legacy-tasks.ts; resources and completion: resources.ts).
 */
export function buildMcpServer(deps: CallDeps, caller: Caller, options: McpOptions): Server {
  const flowTools = options.flowTools ?? NO_FLOW_TOOLS;
  const listChanged = flowTools.enabled && deps.flows !== undefined;
  const tasks = options.era === 'legacy' ? LEGACY_TASKS : CONTROL_TASKS;
  const server = new Server(
    { name: 'selenium-flow', version: options.version },
    {
      capabilities: capabilitiesOf(deps, tasks, listChanged),
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: new DefaultJsonSchemaValidator(),
    },
  );
  if (listChanged && options.connection) {
    const stop = deps.flows?.onChange((library) => {
      if (affects(caller, library)) {
        server.sendToolListChanged().catch(() => undefined);
      }
    });
    server.onclose = () => stop?.();
  }
  const runTool = toolRunner(deps, options);
  const apps = (ctx: Parameters<typeof announcesApps>[1]) =>
    announcesApps(server.getClientCapabilities(), ctx, options.announced);
  // A host's app that may take Control (control-policy.ts) sees the Control buttons; no other client lists or calls them.
  const by = deps.control?.viewer?.controlBy;
  const control =
    by !== undefined && controlRefusal(by, { via: 'app', hostHeld: caller.hostHeld === true }) === undefined;
  const client = (ctx: Parameters<typeof announcesApps>[1]): AppClient => ({ apps: apps(ctx), control });
  server.setRequestHandler('tools/list', async (_request, ctx) => {
    const flows = await flowToolsFor(deps, caller, flowTools);
    options.onToolsListed?.();
    return {
      tools: [...toolsFor(options.tools, client(ctx)), ...flows.tools],
      ...(listChanged ? { _meta: { [FLOW_TOOLS_META]: flows.meta } } : {}),
    };
  });
  serveToolCall(server, deps, caller, { tools: options.tools, flowTools, client, tasks, runTool });
  tasks.serve(server, deps, caller, runTool);
  serveResources(server, deps, caller, options.log, apps);
  return server;
}

function capabilitiesOf(deps: CallDeps, tasks: TaskEra, listChanged: boolean) {
  return {
    tools: listChanged ? { listChanged: true } : {},
    resources: {},
    completions: {},
    ...tasks.capabilities(deps),
  };
}
