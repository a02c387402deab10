import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rest, startServer, waitForWatchableSlot, type RunningServer } from '../helpers/server.js';
import { connectAppClient, renderApp } from './app-host.js';
import { launchBrowser, type PageBrowser } from './browser.js';

// The apps as the hosts people use render them: SDK 1.x over HTTP (2025-11-25), the client
// Claude Code, VS Code, Cursor, the Inspector and the ext-apps basic-host are built on.
const AGENT = 'apps-hosts-agent-3b8e';
/** The host's own token (TOKENS_FILE control: true): with CONTROL_BY=apps its app may take Control. */
const HOST = 'apps-hosts-host-51c7';
const WORKSPACE = 'ui-apps-hosts';
let running: RunningServer;
let browser: PageBrowser;
let dir: string;
/** Where a host that is a web page lives (basic-host runs in the browser): ALLOWED_ORIGINS names it. */
let pages: Server;
let pagePort: number;

const asAgent = { authorization: `Bearer ${AGENT}`, 'x-workspace': WORKSPACE };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-apps-hosts-'));
  pages = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<p>host'));
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  pagePort = (pages.address() as AddressInfo).port;
  await writeFile(
    join(dir, 'tokens.yaml'),
    `tokens:\n  - {name: agent, token: ${AGENT}, workspaces: ["ui-*"]}\n  - {name: host, token: ${HOST}, workspaces: ["ui-*"], control: true}\n`,
  );
  [running, browser] = await Promise.all([
    startServer({
      TOKENS_FILE: join(dir, 'tokens.yaml'),
      CONTROL_BY: 'apps',
      LIVE_VIEW: 'prefer',
      FLOW_DATA_DIR: dir,
      ALLOWED_ORIGINS: `http://127.0.0.1:${pagePort}`,
    }),
    launchBrowser(),
  ]);
  await waitForWatchableSlot(inject('gridUrl'));
  const opened = await rest(running.url, '/browser/navigate', { url: `${inject('siteUrl')}/table.html` }, asAgent);
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  const shot = await rest(running.url, '/browser/screenshot', { save: true, filename: 'table' }, asAgent);
  expect(shot.status, JSON.stringify(shot.body)).toBe(200);
}, 240_000);

afterAll(async () => {
  await rest(running.url, '/browser/end-browser', {}, asAgent).catch(() => undefined);
  await Promise.all([browser?.close(), running?.close()]);
  pages?.closeAllConnections();
  await new Promise<void>((resolve) => (pages ? pages.close(() => resolve()) : resolve()));
  await rm(dir, { recursive: true, force: true });
});

describe('the apps in the hosts people use (SDK 1.x over HTTP)', () => {
  it('a host that renders without announcing the extension (basic-host, VS Code) shows the files app', async () => {
    // basic-host's own client: capabilities {elicitation: {}}, no extensions.
    const host = await connectAppClient(running.url, {
      era: '2025-11-25',
      announces: false,
      workspace: WORKSPACE,
      headers: { authorization: `Bearer ${HOST}` },
    });
    try {
      const names = (await host.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('workspace_files');
      // What needs a host that said it renders apps is not offered: the model would call it for nothing.
      expect(names).not.toContain('watch');
      const app = await renderApp(browser, host, 'workspace_files');
      try {
        const shots = app.frame.getByRole('list', { name: 'screenshots' });
        await shots.getByRole('listitem').first().waitFor();
        expect(await shots.locator('.name').allTextContents()).toEqual(['table.png']);
        const img = shots.locator('img');
        await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(100);
        expect(app.problems).toEqual([]);
        await app.page.screenshot({ path: 'docs/apps/host-files.png' });
      } finally {
        await app.close();
      }
    } finally {
      await host.close();
    }
  });

  it('a host that announced it at initialize shows both apps, the live one with Take control for a person’s token', async () => {
    const host = await connectAppClient(running.url, {
      era: '2025-11-25',
      workspace: WORKSPACE,
      headers: { authorization: `Bearer ${HOST}` },
    });
    try {
      const names = (await host.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['watch', 'live_ticket', 'take_control', 'hand_back']));
      const files = await renderApp(browser, host, 'workspace_files');
      try {
        const shots = files.frame.getByRole('list', { name: 'screenshots' });
        await shots.getByRole('listitem').first().waitFor();
        expect(await shots.locator('.name').allTextContents()).toEqual(['table.png']);
        expect(files.problems).toEqual([]);
      } finally {
        await files.close();
      }
      const app = await renderApp(browser, host, 'watch');
      try {
        await app.page.setViewportSize({ width: 800, height: 700 });
        await app.frame.getByText('Watching').waitFor({ timeout: 30_000 });
        await app.frame.getByRole('button', { name: /Take control/ }).waitFor();
        // The screen drew: a blank canvas holds one or two colours.
        const colours = () =>
          app.frame.locator('.screen canvas').evaluate((canvas: HTMLCanvasElement) => {
            const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
            const seen = new Set<number>();
            for (let i = 0; i < data.length; i += 4 * 997) {
              seen.add(((data[i] ?? 0) << 16) | ((data[i + 1] ?? 0) << 8) | (data[i + 2] ?? 0));
            }
            return seen.size;
          });
        await expect.poll(colours, { timeout: 20_000 }).toBeGreaterThan(8);
        expect(app.calls.map((c) => c.name)).toContain('live_ticket');
        expect(app.problems).toEqual([]);
        await app.page.screenshot({ path: 'docs/apps/host-live.png' });
      } finally {
        await app.close();
      }
    } finally {
      await host.close();
    }
  });

  it('a host that is a web page calls /mcp from an origin ALLOWED_ORIGINS names, and reads its session', async () => {
    const page = await browser.browser.newPage();
    try {
      // What a page's MCP client does: initialize, read the session's id, send it on.
      const connect = (origin: string) =>
        page.goto(`${origin}/`).then(() =>
          page.evaluate(
            async ({ url, token }) => {
              const headers = {
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
                authorization: `Bearer ${token}`,
              };
              const extensions = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };
              const params = {
                protocolVersion: '2025-11-25',
                capabilities: { extensions },
                clientInfo: { name: 'page', version: '1' },
              };
              try {
                const init = await fetch(url, {
                  method: 'POST',
                  headers,
                  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params }),
                });
                const session = init.headers.get('mcp-session-id') ?? '';
                await init.text();
                const listed = await fetch(url, {
                  method: 'POST',
                  headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
                  body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
                });
                return { session, tools: await listed.text() };
              } catch (err) {
                return { refused: String(err) };
              }
            },
            { url: `${running.url}/mcp`, token: HOST },
          ),
        );
      const allowed = await connect(`http://127.0.0.1:${pagePort}`);
      expect(allowed.session).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(allowed.tools).toContain('"live_ticket"');
      // Another origin (another name, same port): the guard refuses it, and the browser keeps the answer from the page.
      const refused = await connect(`http://localhost:${pagePort}`);
      expect(refused.refused).toContain('fetch');
    } finally {
      await page.close();
    }
  });
});
