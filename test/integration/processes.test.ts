import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, inject } from 'vitest';
import { gridFetch } from '../../src/grid/grid.js';
import { startGridProxy } from '../helpers/grid-proxy.js';
import { spawnReplica } from '../helpers/replica.js';
import { rest, sharedGridEnv } from '../helpers/server.js';

const env = () => ({ ...(process.env as Record<string, string>), ...sharedGridEnv(), SE_OFFLINE: 'true' });
/**
 * Node itself, not `npx tsx`: closing the client signals the process it started, and a wrapper
 * would pass away while the server it started kept running.
 */
const STDIO = { command: process.execPath, args: ['--import', 'tsx', 'src/cli.ts', 'stdio'] };

describe('selenium-flow stdio', () => {
  it('serves MCP over stdio in saved mode: no session_id needed', async () => {
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      ...STDIO,
      env: env(),
      stderr: 'pipe',
    });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('outline');
      const went = await client.callTool({ name: 'navigate', arguments: { url: `${inject('siteUrl')}/login.html` } });
      expect(went.structuredContent).toMatchObject({ title: 'Login' });
      const current = await client.callTool({ name: 'current_workspace', arguments: {} });
      expect(current.structuredContent).toMatchObject({ workspace: '_stdio', mode: 'saved', title: 'Login' });
      // No HTTP server opens a link here: a saved file answers its uri, and no link.
      const shot = await client.callTool({ name: 'screenshot', arguments: { save: true, filename: 'stdio-shot' } });
      expect(shot.structuredContent).toMatchObject({ uri: 'workspace://files/screenshots/stdio-shot.png' });
      const listed = await client.callTool({ name: 'workspace_files', arguments: { folder: 'screenshots' } });
      expect(listed.structuredContent).toMatchObject({ files: [{ name: 'stdio-shot.png' }] });
      for (const answer of [shot, listed]) {
        expect(JSON.stringify(answer)).not.toMatch(/"url"|\/files\/signed/);
      }
      expect((await client.callTool({ name: 'end_browser', arguments: {} })).structuredContent).toEqual({
        ended: true,
      });
    } finally {
      await client.close();
    }
  });
});

describe('selenium-flow stdio, flow tools', () => {
  it('tells its client with tools/list_changed when a flow is saved, and lists flow_<name>', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'stdio-flow-tools-'));
    const client = new Client({ name: 'stdio-flow-tools', version: '1.0.0' });
    let heard = 0;
    let wake: (() => void) | undefined;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      heard += 1;
      wake?.();
    });
    const transport = new StdioClientTransport({
      ...STDIO,
      env: { ...env(), FLOW_DATA_DIR: dataDir },
      stderr: 'pipe',
    });
    await client.connect(transport);
    try {
      expect(client.getServerCapabilities()?.tools).toMatchObject({ listChanged: true });
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('flow_greet');
      const saved = await client.callTool({
        name: 'save_flow',
        arguments: {
          name: 'greet',
          document: {
            description: 'Open the fixture login page',
            steps: [{ tool: 'navigate', args: { url: `${inject('siteUrl')}/login.html` } }],
          },
        },
      });
      expect(saved.isError, JSON.stringify(saved.content)).toBeFalsy();
      if (heard === 0) {
        await new Promise<void>((resolve) => (wake = resolve));
      }
      expect(heard).toBe(1);
      const tool = (await client.listTools()).tools.find((t) => t.name === 'flow_greet');
      expect(tool?.description).toContain('Open the fixture login page');
    } finally {
      await client.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('selenium-flow serve', () => {
  it('never logs a Grid id, a page URL, a title or typed text, even at trace level', async () => {
    // Through a pass-through proxy, to learn the Grid ids this server's browsers really had.
    const proxy = await startGridProxy(inject('gridUrl'));
    // Its own process group, signalled whole: no server outlives the test.
    const server = await spawnReplica({ GRID_URL: proxy.url, LOG_LEVEL: 'trace' });
    const base = server.url;
    const secretText = 'typed-text-that-must-not-be-logged';
    const opened = await rest(base, '/browser/open-session', {});
    const sessionId = opened.body.session_id as string;
    await rest(base, '/browser/navigate', { url: `${inject('siteUrl')}/login.html`, session_id: sessionId });
    await rest(base, '/browser/write', { selector: { css: '#email' }, text: secretText, session_id: sessionId });
    await rest(base, '/browser/extract', { selector: { css: '#nope' }, wait_timeout: 0, session_id: sessionId });
    await rest(base, `/workspace?session_id=${sessionId}`);
    await rest(base, '/browser/end-browser', { session_id: sessionId });
    await rest(base, '/browser/navigate', { url: `${inject('siteUrl')}/login.html` }, { 'x-workspace': 'logged' });
    await rest(base, '/browser/end-browser', {}, { 'x-workspace': 'logged' });
    await server.kill('SIGTERM');
    await proxy.close();
    const logs = server.output();
    expect(logs).toContain('Server listening');
    expect(proxy.created).toHaveLength(2);
    const gridPassword = new URL(inject('gridUrl')).password;
    expect(gridPassword.length).toBeGreaterThan(0);
    for (const forbidden of [
      sessionId,
      ...proxy.created,
      `${inject('siteUrl')}/login.html`,
      'Login',
      secretText,
      gridPassword,
    ]) {
      expect(logs).not.toContain(forbidden);
    }
  });

  it('never prints the bearer token in its banner', async () => {
    const token = 'banner-token-that-must-not-be-printed';
    // The banner is one write: once its MCP line is read, its Token line is too.
    const server = await spawnReplica({ MCP_AUTH_TOKEN: token, LOG_LEVEL: 'trace', GRID_URL: inject('gridUrl') });
    await server.kill('SIGTERM');
    const printed = server.output();
    expect(printed).toMatch(/Token:\s+set/);
    expect(printed).not.toContain(token);
    // Every client line names a workspace: a second conversation finds the browser of the first.
    const clients = printed.split('\n').filter((line) => /^\s+(REST|Claude Code|Cursor and others)/.test(line));
    expect(clients).toHaveLength(3);
    for (const line of clients) {
      expect(line).toMatch(/\?workspace=default\b|X-Workspace: default\b/);
    }
    expect(printed).toContain(
      `claude mcp add --transport http selenium-flow "${server.url}/mcp?workspace=default" --header "Authorization: Bearer <MCP_AUTH_TOKEN>"`,
    );
    expect(printed).toMatch(/Data:\s+\//);
  });
});

describe('selenium-flow grid', () => {
  it(
    'puts its GRID_URL in a file only its owner reads, and prints the path, never the password',
    { timeout: 90_000 },
    async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'grid'], {
        // No fixture port open: its firewall keys on its own browser group, not the shared test Grid's.
        env: { ...(process.env as Record<string, string>), SE_OFFLINE: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let printed = '';
      child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
      try {
        const file = await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`grid did not start within 60 s:\n${printed}`)), 60_000);
          child.stdout.on('data', () => {
            const match = /is in (\S+grid\.env)/.exec(printed);
            if (match?.[1]) {
              clearTimeout(timer);
              resolve(match[1]);
            }
          });
        });
        const info = await stat(file);
        expect(info.mode & 0o777).toBe(0o600);
        const gridUrl = (await readFile(file, 'utf8')).trim().replace(/^GRID_URL=/, '');
        const password = new URL(gridUrl).password;
        expect(password.length).toBeGreaterThan(16);
        expect(printed).not.toContain(password);
        expect((await gridFetch(`${gridUrl}/status`, { method: 'GET' })).status).toBe(200);
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
        await expect(stat(file)).rejects.toThrow();
      } finally {
        child.kill('SIGKILL');
      }
    },
  );
});
