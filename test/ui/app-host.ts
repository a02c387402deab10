import { createServer, type Server as NodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AppBridge, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { McpUiResourceCsp } from '@modelcontextprotocol/ext-apps';
import type { Frame, Page } from 'playwright-core';
import { APP_MIME_TYPE, UI_EXTENSION } from '../../src/mcp/apps.js';
import type { PageBrowser } from './browser.js';

/**
 * A host for MCP Apps as a client that renders them is one: a real MCP client on a real
 * selenium-flow server (2026-07-28 naming the UI extension; or, as the hosts people use and the
 * ext-apps basic-host are, SDK 1.x over HTTP at 2025-11-25, announcing the extension or not); a
 * page in Chromium that iframes the app's document from another origin, sandboxed, under the CSP
 * its `_meta.ui.csp` asks for; and the SDK's AppBridge between them, which hands the app's tool
 * calls and resource reads to that client (the caller's own credential; the app holds none). The
 * bridge runs here, in Node, and the page relays its postMessages: the app sees exactly what a
 * host's window sends it.
 */

/** The app's window.parent as the bridge sees it: each message posted by, or to, the iframe. */
type Message = Parameters<NonNullable<StreamableHTTPClientTransport['onmessage']>>[0];

type Listed = { name: string; _meta?: Record<string, unknown> };
type CallResult = Awaited<ReturnType<Client['callTool']>>;
type ReadResult = Awaited<ReturnType<Client['readResource']>>;

/** What a host asks of its MCP client, whichever SDK it is built on: both have these three. */
export interface HostClient {
  listTools(): Promise<{ tools: Listed[] }>;
  readResource(params: { uri: string }): Promise<ReadResult>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<CallResult>;
}

export interface McpAppClient {
  client: HostClient;
  close(): Promise<void>;
}

export interface HostOptions {
  workspace?: string;
  headers?: Record<string, string>;
  /** the SDK and protocol era: 2026-07-28 (SDK v2, pinned), or SDK 1.x's 2025-11-25 over HTTP */
  era?: '2025-11-25' | '2026-07-28';
  /** whether it announces the UI extension at initialize (basic-host and VS Code render apps without) */
  announces?: boolean;
}

/** A client that announces the UI extension, as Claude, ChatGPT and Goose do; or, told so, one that does not. */
export async function connectAppClient(base: string, options: HostOptions = {}): Promise<McpAppClient> {
  const url = new URL(`${base}/mcp`);
  if (options.workspace) {
    url.searchParams.set('workspace', options.workspace);
  }
  const requestInit = { headers: options.headers ?? {} };
  const capabilities =
    options.announces === false
      ? { elicitation: {} }
      : { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } };
  if (options.era === '2025-11-25') {
    const legacy = new LegacyClient({ name: 'test-app-host', version: '1.0.0' }, { capabilities });
    await legacy.connect(new LegacyTransport(url, { requestInit }));
    // SDK 1.x answers the same wire shapes; its TypeScript types are its own.
    return { client: legacy as unknown as HostClient, close: () => legacy.close() };
  }
  const client = new Client(
    { name: 'test-app-host', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  return { client, close: () => client.close() };
}

export interface RenderedApp {
  page: Page;
  /** the app's document: locate and evaluate in it */
  frame: Frame;
  /** the CSP the host applied, as sent */
  csp: string;
  /** what the app asked the host to call (tools/call params), in order */
  calls: { name: string; arguments?: Record<string, unknown> }[];
  /** what the app asked the host to download or open (ui/download-file contents) */
  downloads: unknown[];
  /** script errors in the app's document */
  problems: string[];
  close(): Promise<void>;
}

/**
 * A CSP from `_meta.ui.csp` (the spec's defaults: inline script and style, data: images, nothing
 * to connect to or frame); each list adds its origins to its directives.
 */
export function cspOf(csp: McpUiResourceCsp = {}): string {
  const resources = (csp.resourceDomains ?? []).join(' ');
  const or = (list: string[] | undefined, none: string) => (list?.length ? list.join(' ') : none);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`,
    `style-src 'self' 'unsafe-inline' ${resources}`,
    `img-src 'self' data: blob: ${resources}`,
    `font-src 'self' data: ${resources}`,
    `media-src 'self' data: blob: ${resources}`,
    `connect-src ${or(csp.connectDomains, "'none'")}`,
    `frame-src ${or(csp.frameDomains, "'none'")}`,
    `base-uri ${or(csp.baseUriDomains, "'self'")}`,
    "object-src 'none'",
  ].join('; ');
}

const HOST_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>host</title>
<style>body{margin:0;background:#eee}iframe{border:0;width:100%;height:100vh;display:block}</style></head>
<body><iframe id="app" title="app" sandbox="allow-scripts allow-same-origin allow-forms"></iframe>
<script>
const frame = document.getElementById('app');
window.addEventListener('message', (e) => { if (e.source === frame.contentWindow) window.__toBridge(e.data); });
window.__toApp = (m) => frame.contentWindow.postMessage(m, '*');
window.__open = (src) => { frame.src = src; };
</script></body></html>`;

/**
 * Calls `tool` as the model would, then renders its app the way a host does: reads the tool's
 * `_meta.ui.resourceUri`, reads that resource, frames it, hands the app the call's input and result.
 */
export async function renderApp(
  browser: PageBrowser,
  host: McpAppClient,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<RenderedApp> {
  const { client } = host;
  const listed = (await client.listTools()).tools;
  const row = listed.find((t) => t.name === tool);
  const uri = row ? getToolUiResourceUri(row) : undefined;
  if (!uri) {
    throw new Error(`${tool} names no app in tools/list (_meta.ui.resourceUri).`);
  }
  const read = await client.readResource({ uri });
  const content = read.contents[0] as
    { mimeType?: string; text?: string; _meta?: { ui?: { csp?: McpUiResourceCsp } } } | undefined;
  if (content?.mimeType !== APP_MIME_TYPE || content.text === undefined) {
    throw new Error(`${uri} is not an app document (${content?.mimeType ?? 'nothing'}).`);
  }
  const csp = cspOf(content._meta?.ui?.csp);
  const html = content.text;
  const result = await client.callTool({ name: tool, arguments: args });

  // Two origins on one port: the host page on 127.0.0.1, the app on localhost.
  const web: NodeServer = createServer((request, response) => {
    if (request.url === '/host') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(HOST_PAGE);
    } else if (request.url === '/app') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp }).end(html);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  const port = (web.address() as AddressInfo).port;

  const page = await browser.browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`script error: ${err.message}`));
  const calls: RenderedApp['calls'] = [];
  const downloads: unknown[] = [];

  // No client for the bridge to forward through by itself: the host hands each request over (below).
  const bridge = new AppBridge(
    null,
    { name: 'test-app-host', version: '1.0.0' },
    { serverTools: {}, serverResources: {}, openLinks: {}, downloadFile: {} },
    { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web' } },
  );
  bridge.ondownloadfile = async (params) => {
    downloads.push(...params.contents);
    return {};
  };
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: args }).then(() => bridge.sendToolResult(result));
  };

  let deliver: ((message: Message) => void) | undefined;
  await page.exposeFunction('__toBridge', (message: Message) => deliver?.(message));
  await page.goto(`http://127.0.0.1:${port}/host`);
  await bridge.connect({
    start: async () => undefined,
    send: async (message: Message) => {
      await page.evaluate((m) => (window as unknown as { __toApp(m: unknown): void }).__toApp(m), message);
    },
    close: async () => undefined,
    set onmessage(handler: ((message: Message) => void) | undefined) {
      deliver = handler;
    },
  });
  // After connect, which installs the bridge's own forwarding. The host decides what an app may
  // call: only tools listed to it whose visibility names the app.
  bridge.oncalltool = async (params) => {
    const target = listed.find((t) => t.name === params.name);
    const visibility = (target?._meta?.ui as { visibility?: string[] } | undefined)?.visibility;
    if (!target || (visibility && !visibility.includes('app'))) {
      throw new Error(`The host does not let the app call ${params.name}.`);
    }
    calls.push({ name: params.name, arguments: params.arguments });
    return await client.callTool(params);
  };
  bridge.onreadresource = async (params) => await client.readResource(params);
  await page.evaluate(
    (src) => (window as unknown as { __open(s: string): void }).__open(src),
    `http://localhost:${port}/app`,
  );
  const frame = await appFrame(page, `http://localhost:${port}/app`);

  return {
    page,
    frame,
    csp,
    calls,
    downloads,
    problems,
    close: async () => {
      await bridge.close().catch(() => undefined);
      await page.close();
      // Chromium pools its sockets beyond the page, and close() would wait out their keep-alive.
      web.closeAllConnections();
      await new Promise<void>((resolve) => web.close(() => resolve()));
    },
  };
}

async function appFrame(page: Page, url: string): Promise<Frame> {
  for (let i = 0; i < 100; i++) {
    const frame = page.frames().find((f) => f.url() === url);
    if (frame) {
      await frame.waitForLoadState('load');
      return frame;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('The app frame did not load.');
}
