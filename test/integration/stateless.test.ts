import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectMcp, startServer, type ProtocolEra, type RunningServer } from '../helpers/server.js';
import { toolClient } from '../helpers/tools.js';

const site = inject('siteUrl');

let running: RunningServer;
/** Every browser this file opened and has not ended yet, so afterAll can end them. */
const opened = new Set<string>();

type Answer = Record<string, unknown>;

/** Stateless HTTP calls: no X-Workspace header. */
const tools = toolClient(() => running.url);
const { call, ok } = tools;

async function openBrowser(): Promise<string> {
  const answer = await ok('open_session');
  const id = answer.session_id as string;
  opened.add(id);
  return id;
}

async function endBrowser(id: string): Promise<void> {
  expect(await ok('end_browser', { session_id: id })).toEqual({ ended: true });
  opened.delete(id);
}

function messageOf(body: Answer): string {
  return (body.error as { message: string }).message;
}

/** A well-formed Grid id that no Grid has handed out. */
const unknownId = () => randomBytes(16).toString('hex');

/** Valid arguments for every tool that works on a browser, so only the mode can refuse them. */
const BROWSER_CALLS: [string, Answer][] = [
  ['end_browser', {}],
  ['navigate', { url: `${site}/login.html` }],
  ['interact', { action: 'click', selector: { css: 'h1' } }],
  ['write', { selector: { css: '#email' }, text: 'x' }],
  ['press_key', { key: 'Enter' }],
  ['frame', { action: 'top' }],
  ['dialog', { action: 'accept' }],
  ['resize', { width: 800, height: 600 }],
  ['upload_file', { selector: { css: '#file' }, text: 'x' }],
  ['execute_script', { script: 'return 1' }],
  ['extract', { selector: { css: 'h1' } }],
  ['outline', {}],
  ['screenshot', {}],
  ['print', {}],
  ['assert', { script: 'return true', message: 'm' }],
];

beforeAll(async () => {
  running = await startServer();
});

afterAll(async () => {
  for (const id of opened) {
    await call('end_browser', { session_id: id });
  }
  await running.close();
});

describe('stateless mode over HTTP (no X-Workspace)', () => {
  it('open_session answers the session_id that later calls pass', async () => {
    const answer = await ok('open_session');
    expect(answer.session_id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const id = answer.session_id as string;
    opened.add(id);
    const went = await ok('navigate', { url: `${site}/login.html`, session_id: id });
    expect(went).toMatchObject({ url: `${site}/login.html`, title: 'Login' });
    await ok('write', { selector: { css: '#email' }, text: 'stateless@example.com', session_id: id });
    expect(await ok('extract', { selector: { css: '#email' }, what: 'value', session_id: id })).toEqual({
      value: 'stateless@example.com',
    });
    const current = await call('current_workspace', { session_id: id });
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({
      workspace: null,
      mode: 'stateless',
      browser: { session_id: id, kind: 'chrome', version: expect.stringMatching(/^\d+\./) as string, alive: true },
    });
    await endBrowser(id);
  });

  it('every browser tool without session_id is a 400 naming both remedies, and opens nothing', async () => {
    const before = await call('current_workspace');
    for (const [tool, args] of BROWSER_CALLS) {
      const refused = await call(tool, args);
      expect(refused.status, tool).toBe(400);
      const message = messageOf(refused.body);
      expect(message, tool).toContain('session_id');
      expect(message, tool).toMatch(/X-Workspace|workspace=/);
    }
    expect(await call('current_workspace')).toEqual(before);
    expect(before.body).toMatchObject({ mode: 'stateless', browser: null });
  });

  it('a session_id the Grid does not know is a 404 that says to call open_session', async () => {
    for (const [tool, args] of BROWSER_CALLS.filter(([name]) => name !== 'end_browser')) {
      const missing = await call(tool, { ...args, session_id: unknownId() });
      expect(missing.status, tool).toBe(404);
      expect(messageOf(missing.body), tool).toContain('open_session');
    }
    expect(await ok('end_browser', { session_id: unknownId() })).toEqual({ ended: false });
    expect(await ok('current_workspace', { session_id: unknownId() })).toMatchObject({
      mode: 'stateless',
      browser: null,
    });
  });

  it('two stateless browsers stay apart', async () => {
    const first = await openBrowser();
    const second = await openBrowser();
    await ok('navigate', { url: `${site}/login.html`, session_id: first });
    await ok('navigate', { url: `${site}/table.html`, session_id: second });
    expect((await ok('extract', { selector: { css: 'h1' }, session_id: first })).value).toBe('Login');
    expect((await ok('extract', { selector: { css: 'h1' }, session_id: second })).value).toBe('Data table');
    await endBrowser(first);
    expect((await ok('extract', { selector: { css: 'h1' }, session_id: second })).value).toBe('Data table');
    await endBrowser(second);
  });

  it('an ended browser answers 404 with the remedy', async () => {
    const id = await openBrowser();
    await endBrowser(id);
    const gone = await call('navigate', { url: `${site}/login.html`, session_id: id });
    expect(gone.status).toBe(404);
    expect(messageOf(gone.body)).toContain('open_session');
    const read = await call('extract', { selector: { css: 'h1' }, session_id: id });
    expect(read.status).toBe(404);
    expect(messageOf(read.body)).toContain('open_session');
  });

  it('a saved workspace refuses session_id with a 400 that says to drop it, and keeps its browser', async () => {
    const named = tools.in('stateless-saved');
    const saved = await named.call('open_session');
    expect(saved.status).toBe(200);
    // A named workspace remembers its browser: it is handed no handle at all.
    expect(saved.body).not.toHaveProperty('session_id');
    const handle = await openBrowser();
    await named.ok('navigate', { url: `${site}/login.html` });
    const before = await named.call('current_workspace');

    for (const [tool, args] of [...BROWSER_CALLS, ['navigate', { url: `${site}/table.html` }] as [string, Answer]]) {
      const refused = await named.call(tool, { ...args, session_id: handle });
      expect(refused.status, tool).toBe(400);
      expect(messageOf(refused.body), tool).toContain('drop session_id');
    }
    const current = await named.call('current_workspace', { session_id: handle });
    expect(current.status).toBe(400);
    expect(messageOf(current.body)).toContain('drop session_id');

    expect(await named.call('current_workspace')).toEqual(before);
    expect(before.body).toMatchObject({ url: `${site}/login.html`, browser: { kind: 'chrome', alive: true } });
    expect(before.body.browser).not.toHaveProperty('session_id');
    expect(await named.ok('end_browser')).toEqual({ ended: true });
    await endBrowser(handle);
  });
});

// A 2025-11-25 client over HTTP is in an MCP session, which is a workspace of its own (mcp-sessions.test.ts).
describe.each<ProtocolEra>(['2026-07-28'])('stateless mode over MCP %s (no ?workspace)', (era) => {
  it('open_session answers session_id; calls without it name both remedies; with it they work', async () => {
    const mcp = await connectMcp(running.url, era);
    try {
      const answer = await mcp.call('open_session');
      expect(answer.isError).toBe(false);
      const id = answer.structured?.session_id as string;
      expect(id).toMatch(/^[A-Za-z0-9_-]{32}$/);
      opened.add(id);

      for (const [tool, args] of BROWSER_CALLS) {
        const refused = await mcp.call(tool, args);
        expect(refused.isError, tool).toBe(true);
        expect(refused.text, tool).toContain('session_id');
        expect(refused.text, tool).toMatch(/X-Workspace|workspace=/);
      }

      const went = await mcp.call('navigate', { url: `${site}/table.html`, session_id: id });
      expect(went.structured).toMatchObject({ url: `${site}/table.html`, title: 'Data table' });
      const rows = await mcp.call('extract', { selector: { css: '#data tbody tr' }, all: true, session_id: id });
      expect((rows.structured?.values as string[]).length).toBe(50);
      const current = await mcp.call('current_workspace', { session_id: id });
      expect(current.structured).toMatchObject({ mode: 'stateless', browser: { session_id: id, alive: true } });

      // The id is the browser, whichever surface holds it.
      expect((await ok('extract', { selector: { css: 'h1' }, session_id: id })).value).toBe('Data table');

      const missing = await mcp.call('navigate', { url: `${site}/login.html`, session_id: unknownId() });
      expect(missing.isError).toBe(true);
      expect(missing.text).toContain('open_session');

      expect((await mcp.call('end_browser', { session_id: id })).structured).toEqual({ ended: true });
      opened.delete(id);
      const gone = await mcp.call('extract', { selector: { css: 'h1' }, session_id: id });
      expect(gone.isError).toBe(true);
      expect(gone.text).toContain('open_session');
    } finally {
      await mcp.close();
    }
  });
});

describe.each<ProtocolEra>(['2025-11-25', '2026-07-28'])('a named workspace over MCP %s', (era) => {
  it('refuses session_id, saying to drop it', async () => {
    const mcp = await connectMcp(running.url, era, { workspace: `stateless-mcp-${era}` });
    try {
      const refused = await mcp.call('navigate', { url: `${site}/login.html`, session_id: unknownId() });
      expect(refused.isError).toBe(true);
      expect(refused.text).toContain('drop session_id');
      const current = await mcp.call('current_workspace');
      expect(current.structured).toMatchObject({ mode: 'saved', browser: null, url: null });
    } finally {
      await mcp.close();
    }
  });
});
