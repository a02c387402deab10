// Types only: the SDK's server helpers want an McpServer (this server is the low-level Server)
// and would make the package and its peers a runtime dependency for three string facts.
import type { McpUiResourceMeta, McpUiToolMeta } from '@modelcontextprotocol/ext-apps';
import type { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { CAPABILITIES } from '../capabilities/index.js';
import { isAppButton, type Capability } from '../capabilities/capability.js';
import { NotFound } from '../errors.js';
import { UI_ARCHIVE } from '../package.js';
import { readUi } from '../ui-archive.js';
import type { ResourceDefinition } from './resources.js';
import type { ListedTool } from './tools.js';
import type { Caller } from '../workspace/caller.js';

/** The MCP Apps extension (SEP-1865), as a client names it under capabilities.extensions. */
export const UI_EXTENSION: typeof EXTENSION_ID = 'io.modelcontextprotocol/ui';
/** What a UI resource is served as; a host renders nothing else as an app. */
export const APP_MIME_TYPE: typeof RESOURCE_MIME_TYPE = 'text/html;profile=mcp-app';

export interface AppDefinition {
  name: string;
  title: string;
  description: string;
  /**
   * What the host's CSP lets the app reach beyond its own inline document. Empty lists: nothing —
   * every byte the app shows comes through the host, as the caller's own tool calls and reads.
   * A function: what this caller may reach depends on how it reached this server (the live app).
   */
  ui: McpUiResourceMeta | ((caller: Caller) => McpUiResourceMeta);
}

/** Every app, once. A tool names its app on its capability row (`app: { name }`). */
export const APPS: readonly AppDefinition[] = [
  {
    name: 'files',
    title: 'Files',
    description: 'The workspace’s Downloads, Screenshots and Files, with thumbnails; keep a download or screenshot.',
    ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true },
  },
  {
    name: 'live',
    title: 'Live view',
    description: "The workspace's browser live (view only), with Take control and Hand back.",
    // The screen comes over one websocket to this server's own origin (the tunnel), nothing else.
    ui: (caller) => ({
      csp: { connectDomains: caller.origin ? [caller.origin.replace(/^http/, 'ws')] : [], resourceDomains: [] },
      prefersBorder: true,
    }),
  },
];

export function appUri(name: string): string {
  return `ui://selenium-flow/${name}`;
}

/**
 * The app's document as vite built it (ui/apps/<name>/, one self-contained document each); a
 * source checkout that has not built says how to.
 */
export async function appHtml(name: string): Promise<string> {
  const html = readUi(UI_ARCHIVE)?.get(`apps/${name}.html`);
  if (!html) {
    throw new NotFound(`The ${name} app is not built in this install; run \`npm run build\` (it builds ui/apps/).`);
  }
  return html.toString('utf8');
}

/** The apps as resources: listed only to a client that renders them, readable by any. */
export const APP_RESOURCES: ResourceDefinition[] = APPS.map((app) => ({
  uri: appUri(app.name),
  name: `${app.name}-app`,
  title: app.title,
  description: app.description,
  mimeType: APP_MIME_TYPE,
  app: true,
  read: async (_deps, caller, uri) => [
    {
      uri,
      mimeType: APP_MIME_TYPE,
      text: await appHtml(app.name),
      _meta: { ui: typeof app.ui === 'function' ? app.ui(caller) : app.ui },
    },
  ],
}));

type ClientCapabilities = { extensions?: Record<string, unknown> } | undefined;

/**
 * Whether this client renders apps: it named the extension in its initialize (stdio, or any
 * connection the SDK remembers; over HTTP, its session remembers: `announced`) or in this
 * request's own capabilities (2026-07-28 carries them on every request).
 */
export function announcesApps(
  connection: ClientCapabilities,
  request: { mcpReq: { envelope?: Record<string, unknown> } },
  announced: readonly string[] = [],
): boolean {
  const declared = request.mcpReq.envelope?.['io.modelcontextprotocol/clientCapabilities'] as ClientCapabilities;
  return (
    announced.includes(UI_EXTENSION) ||
    [connection, declared].some((c) => c?.extensions !== undefined && Object.hasOwn(c.extensions, UI_EXTENSION))
  );
}

function toolMeta(capability: Capability): McpUiToolMeta | undefined {
  if (!capability.app) {
    return undefined;
  }
  const { name, visibility } = capability.app;
  return { resourceUri: appUri(name), ...(visibility ? { visibility: [...visibility] } : {}) };
}

export type AppTool = ListedTool & { _meta?: { ui: McpUiToolMeta } };

/** What a client's rendering of tools depends on: whether it renders apps, and whether its app may take Control. */
export interface AppClient {
  apps: boolean;
  /** its app may take Control (control-policy.ts): only then are the Control buttons listed */
  control: boolean;
}

/**
 * tools/list with each listed row's app named in its _meta. Every client reads it: a host may
 * render apps without announcing the extension (VS Code, microsoft/vscode#291432; the ext-apps
 * basic-host), and one that renders none ignores `_meta.ui` (the extension says so). What a
 * client without apps does not list are the rows that need one: watch and the live app's buttons.
 */
export function toolsFor(tools: ListedTool[], client: AppClient): AppTool[] {
  const hidden = new Set(CAPABILITIES.filter((c) => !listedTo(c, client)).map((c) => c.name));
  const shown = tools.filter((t) => !hidden.has(t.name));
  const metas = new Map(CAPABILITIES.map((c) => [c.name, toolMeta(c)]));
  return shown.map((t) => {
    const ui = metas.get(t.name);
    return ui ? { ...t, _meta: { ui } } : t;
  });
}

/** Whether a client lists, and so may call, a row: one that needs apps only if it renders them, a Control button only if its app may take Control. */
export function listedTo(capability: Capability, client: AppClient): boolean {
  return (!needsApps(capability) || client.apps) && (capability.app?.control !== true || client.control);
}

/**
 * A row a client without apps neither lists nor may call: one only an app calls (its buttons), or
 * one whose answer is the app (watch), which such a client could not show.
 */
export function needsApps(capability: Capability): boolean {
  return capability.app?.appIsTheAnswer === true || isAppButton(capability);
}
