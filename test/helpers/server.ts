import { LIVE_VIEW_CAPABILITY, type BrowserKind } from '../../src/grid/capabilities.js';
import { sessionCapabilities } from '../../src/grid/session-lookup.js';
import { fetchGridStatus, upSlots } from '../../src/grid/status.js';
import { poll } from '../../src/poll.js';
import { gridFetch } from '../../src/grid/grid.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { inject } from 'vitest';
import { capabilityNamed } from '../../src/capabilities/index.js';
import { jsonSchemaOf } from '../../src/capabilities/json-schema.js';
import { loadConfig } from '../../src/config.js';
import { freePort } from '../../src/embedded-grid/index.js';
import { openServer, type HttpServer } from '../../src/server.js';
import { callerOfWorkspace } from '../../src/workspace/caller.js';

const ajv = new Ajv2020({ strict: false });
const outputValidators = new Map<string, ValidateFunction>();

/**
 * tools/list carries no outputSchema (its bytes are read on every connection), so no client
 * checks structuredContent for us: every MCP answer in the tests is checked against the
 * output schema the table publishes in the OpenAPI document.
 */
function expectOutputOf(tool: string, structured: Record<string, unknown>): void {
  const capability = capabilityNamed(tool);
  if (!capability) {
    return;
  }
  let validate = outputValidators.get(tool);
  if (!validate) {
    validate = ajv.compile(jsonSchemaOf(capability.output, 'output'));
    outputValidators.set(tool, validate);
  }
  if (!validate(structured)) {
    throw new Error(`${tool} answered structuredContent outside its output schema: ${ajv.errorsText(validate.errors)}`);
  }
}

export interface RunningServer {
  server: HttpServer;
  url: string;
  close(): Promise<void>;
}

/**
 * The browser this run's suites drive: the browser matrix. The `firefox` project of
 * vitest.config.ts runs the browser suites again with TEST_BROWSER=firefox.
 */
export function testBrowser(): BrowserKind {
  const asked = process.env.TEST_BROWSER ?? 'chrome';
  if (asked !== 'chrome' && asked !== 'firefox') {
    throw new Error(`TEST_BROWSER must be chrome or firefox, not ${asked}.`);
  }
  return asked;
}

/**
 * How the test browser's BiDi names a request whose connection the fixture site cut
 * (`GET /api/hangup`): each browser has its own error names (docs/network.md).
 */
export function hungUpError(): string {
  return testBrowser() === 'firefox' ? 'NS_ERROR_NET_RESET' : 'net::ERR_EMPTY_RESPONSE';
}

/**
 * The environment a spawned selenium-flow needs for the shared Grid. LIVE_VIEW off, as in
 * startServer: a browser it opens (and a killed server leaves behind) never takes the one
 * watchable slot the live tests wait their turn for.
 */
export function sharedGridEnv(): Record<string, string> {
  return { GRID_URL: inject('gridUrl'), LIVE_VIEW: 'off' };
}

/** A real selenium-flow HTTP server in this process, on a free port, against the shared Grid (or gridUrl). */
export async function startServer(
  env: Record<string, string> = {},
  gridUrl: string = inject('gridUrl'),
): Promise<RunningServer> {
  // LIVE_VIEW off: the shared Grid's one watchable slot is kept for the tests that watch.
  const defaults = { PORT: '0', LOG_LEVEL: 'silent', LIVE_VIEW: 'off', DEFAULT_BROWSER: testBrowser() };
  const config = loadConfig({}, { ...defaults, ...env });
  const server = await openServer(config, gridUrl);
  const url = await server.app.listen({ host: '127.0.0.1', port: 0 });
  return { server, url, close: () => server.close() };
}

/**
 * A server as startServer starts one, on a port chosen before it starts, so its PUBLIC_URL can
 * name it: an OAuth access token's audience is that URL (OAUTH_ISSUER needs PUBLIC_URL).
 */
export async function startPublicServer(
  env: Record<string, string> = {},
  gridUrl: string = inject('gridUrl'),
): Promise<RunningServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const defaults = {
    PORT: String(port),
    PUBLIC_URL: url,
    LOG_LEVEL: 'silent',
    LIVE_VIEW: 'off',
    DEFAULT_BROWSER: testBrowser(),
  };
  const server = await openServer(loadConfig({}, { ...defaults, ...env }), gridUrl);
  await server.app.listen({ host: '127.0.0.1', port });
  return { server, url, close: () => server.close() };
}

/**
 * The Grid's id of a named workspace's browser, read from the server's own store: no answer
 * carries it (agents never learn a Grid id), but a test may need to ask the Grid about it.
 */
export async function gridIdOf(running: RunningServer, workspace: string): Promise<string | undefined> {
  return (await running.server.store.get(callerOfWorkspace(workspace).key))?.gridId;
}

/** The ids of every session the Grid runs now, from its /status (which touches no session). */
export async function gridSessionIds(gridUrl: string = inject('gridUrl')): Promise<Set<string>> {
  const status = (await (await gridFetch(`${gridUrl}/status`, { method: 'GET' })).json()) as {
    value: { nodes: { slots: { session: { sessionId: string } | null }[] }[] };
  };
  return new Set(
    status.value.nodes.flatMap((node) => node.slots.flatMap((slot) => (slot.session ? [slot.session.sessionId] : []))),
  );
}

/** Whether the Grid still runs the browser with this id. */
export async function gridHas(gridId: string, gridUrl: string = inject('gridUrl')): Promise<boolean> {
  const ids = await gridSessionIds(gridUrl);
  return ids.has(gridId);
}

/** A JSON POST/GET against the REST surface; answers status and parsed body. */
export async function rest(
  base: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(base + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export type ProtocolEra = '2025-11-25' | '2026-07-28';

export interface McpCaller {
  era: ProtocolEra;
  call(name: string, args?: Record<string, unknown>): Promise<McpToolAnswer>;
  listTools(): Promise<{ name: string; inputSchema: unknown; annotations?: Record<string, unknown> }[]>;
  readResource(uri: string): Promise<string>;
  close(): Promise<void>;
}

export interface McpToolAnswer {
  isError: boolean;
  structured: Record<string, unknown> | undefined;
  text: string;
  content: { type: string; data?: string; mimeType?: string; text?: string }[];
}

/**
 * An official MCP client of either protocol era: SDK 1.x speaks 2025-11-25, SDK 2.x
 * speaks 2026-07-28. `workspace` goes on the URL as ?workspace=.
 */
export async function connectMcp(
  base: string,
  era: ProtocolEra,
  options: { workspace?: string; headers?: Record<string, string> } = {},
): Promise<McpCaller> {
  const url = new URL(`${base}/mcp`);
  if (options.workspace) {
    url.searchParams.set('workspace', options.workspace);
  }
  const requestInit = { headers: options.headers ?? {} };
  const client =
    era === '2025-11-25'
      ? new LegacyClient({ name: 'test-legacy', version: '1.0.0' })
      : new ModernClient(
          { name: 'test-modern', version: '1.0.0' },
          { versionNegotiation: { mode: { pin: '2026-07-28' } } },
        );
  const transport =
    era === '2025-11-25' ? new LegacyTransport(url, { requestInit }) : new ModernTransport(url, { requestInit });
  // Both clients take their own era's transport; the union type hides that pairing.
  await (client as LegacyClient).connect(transport);
  return {
    era,
    call: async (name, args = {}) => {
      const result = (await (client as LegacyClient).callTool({ name, arguments: args })) as {
        isError?: boolean;
        structuredContent?: Record<string, unknown>;
        content: McpToolAnswer['content'];
      };
      if (!result.isError && result.structuredContent) {
        expectOutputOf(name, result.structuredContent);
      }
      const text = result.content
        .filter((c) => c.type === 'text')
        .map((c) => c.text ?? '')
        .join('\n');
      return { isError: result.isError === true, structured: result.structuredContent, text, content: result.content };
    },
    listTools: async () => (await (client as LegacyClient).listTools()).tools,
    readResource: async (uri) => {
      const result = await (client as LegacyClient).readResource({ uri });
      const first = result.contents[0] as { text?: string } | undefined;
      return first?.text ?? '';
    },
    close: () => (client as LegacyClient).close(),
  };
}

/**
 * Waits until the Grid has a free watchable slot. The shared Grid has one, and the files that
 * watch a browser (integration and ui projects run at once) take turns on it: without the wait a
 * file that opens while another holds it lands on a headless slot.
 */
export async function waitForWatchableSlot(
  gridUrl: string,
  withinMs = 150_000,
  browser: BrowserKind = 'chrome',
): Promise<void> {
  const free = await poll(
    async () => {
      const slots = upSlots(await fetchGridStatus(gridUrl));
      return (
        slots.some(
          (slot) =>
            slot.stereotype?.[LIVE_VIEW_CAPABILITY] === true &&
            slot.stereotype.browserName === browser &&
            !slot.session,
        ) || undefined
      );
    },
    withinMs,
    500,
  );
  if (!free) {
    // Which session holds it tells a leak (one started long ago) from a slow neighbour.
    const held = upSlots(await fetchGridStatus(gridUrl))
      .filter((slot) => slot.stereotype?.[LIVE_VIEW_CAPABILITY] === true && slot.stereotype.browserName === browser)
      .map((slot) => `held by ${slot.session?.sessionId ?? 'nobody'} since ${slot.session?.start ?? '-'}`);
    throw new Error(`no watchable slot of the Grid came free within ${withinMs / 1000} s (${held.join('; ')})`);
  }
}

/**
 * Opens a workspace's browser on the shared Grid's watchable slot (the server runs with
 * LIVE_VIEW=prefer): waits for the slot, opens with `first` (a call that opens a browser), and
 * when another file's browser took the slot in between, or the server's reading of the Grid
 * was older than the wait, the browser is headless: it is ended and the open tried again.
 */
export async function openWatchable(
  running: RunningServer,
  workspace: string,
  headers: Record<string, string>,
  options: {
    first?: { path: string; body: Record<string, unknown> };
    browser?: BrowserKind;
    gridUrl?: string;
    withinMs?: number;
  } = {},
): Promise<void> {
  const {
    first = { path: '/browser/open-session', body: {} },
    browser = 'chrome',
    gridUrl = inject('gridUrl'),
  } = options;
  const deadline = Date.now() + (options.withinMs ?? 180_000);
  for (let tries = 1; ; tries++) {
    await waitForWatchableSlot(gridUrl, Math.max(deadline - Date.now(), 1_000), browser);
    const opened = await rest(running.url, first.path, first.body, headers);
    if (opened.status !== 200) {
      throw new Error(`${first.path} answered ${opened.status}: ${JSON.stringify(opened.body)}`);
    }
    const record = await running.server.store.get(callerOfWorkspace(workspace).key);
    if (record?.capabilities?.['se:vnc'] !== undefined) {
      return;
    }
    await rest(running.url, '/browser/end-browser', {}, headers);
    if (Date.now() > deadline) {
      throw new Error(`no browser of ${workspace} landed on the watchable slot in ${tries} tries`);
    }
  }
}

/** Which session holds each watchable slot, and which is the workspace's: for a live test's failure. */
export async function watchableSlotsSeen(running: RunningServer, workspace: string): Promise<string> {
  const own = await gridIdOf(running, workspace);
  const slots = upSlots(await fetchGridStatus(inject('gridUrl')))
    .filter((slot) => slot.stereotype?.[LIVE_VIEW_CAPABILITY] === true)
    .map((slot) => `${String(slot.stereotype?.browserName)} slot: ${slot.session?.sessionId.slice(0, 8) ?? 'free'}`);
  const handles = own
    ? await gridFetch(`${inject('gridUrl')}/session/${own}/window/handles`, { method: 'GET' })
        .then(async (response) => JSON.stringify(((await response.json()) as { value?: unknown }).value))
        .catch((error: unknown) => String(error))
    : '-';
  const debuggerAddress = own
    ? (
        (await sessionCapabilities(inject('gridUrl'), own).catch(() => undefined))?.['goog:chromeOptions'] as
          { debuggerAddress?: string } | undefined
      )?.debuggerAddress
    : undefined;
  const targets = debuggerAddress
    ? await fetch(`http://${debuggerAddress}/json/list`)
        .then(async (response) => JSON.stringify(await response.json()))
        .catch((error: unknown) => String(error))
    : '-';
  return `${workspace}'s browser: ${own?.slice(0, 8) ?? 'none'} (tabs ${handles}, targets ${targets}); ${slots.join(', ')}`;
}
