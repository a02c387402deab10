import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CLI = ['--import', 'tsx', 'src/cli.ts'];

let home: string;
/** A PATH with nothing on it: no java, no cargo, no redis-server. */
let emptyPath: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'selenium-flow-doctor-'));
  emptyPath = await mkdtemp(join(tmpdir(), 'selenium-flow-empty-path-'));
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(emptyPath, { recursive: true, force: true });
});

const env = (extra: Record<string, string>) => ({
  HOME: home,
  XDG_DATA_HOME: join(home, 'data'),
  SE_OFFLINE: 'true',
  SE_AVOID_STATS: 'true',
  ...extra,
});

/** The CLI's exit code and output, whatever the code. */
async function cli(args: string[], extra: Record<string, string>) {
  return run(process.execPath, [...CLI, ...args], { cwd: REPO, env: env(extra), timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => err,
  );
}

describe('selenium-flow stdio without a Grid it can run', () => {
  it('answers initialize and tools/list, and tells the first browser call why and what to do', async () => {
    const client = new Client({ name: 'no-java', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...CLI, 'stdio'],
      cwd: REPO,
      env: env({ PATH: emptyPath }),
      stderr: 'pipe',
    });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('navigate');
      const answer = await client.callTool({ name: 'navigate', arguments: { url: 'https://example.test/' } });
      expect(answer.isError).toBe(true);
      const text = JSON.stringify(answer.content);
      expect(text).toContain('missing java');
      expect(text).toContain('selenium-flow setup');
      expect(text).toContain('GRID_URL');
      // A call that needs no browser still works.
      const flows = await client.callTool({ name: 'list_flows', arguments: {} });
      expect(flows.isError ?? false).toBe(false);
    } finally {
      await client.close();
    }
  });
});

describe('selenium-flow doctor', () => {
  it('says a reachable GRID_URL is ready, and exits 0', async () => {
    const { code, stdout } = await cli(['doctor'], { PATH: process.env.PATH ?? '', GRID_URL: inject('gridUrl') });
    expect(code).toBe(0);
    expect(stdout).toMatch(/✓ Grid \(GRID_URL\): http:\/\/127\.0\.0\.1:\d+ is ready/);
    // The Grid's credentials never reach a terminal.
    expect(stdout).not.toContain(new URL(inject('gridUrl')).password || 'no-password');
  });

  it('says an unreachable GRID_URL does not answer, and exits 1', async () => {
    const { code, stdout } = await cli(['doctor'], { PATH: process.env.PATH ?? '', GRID_URL: 'http://127.0.0.1:9' });
    expect(code).toBe(1);
    expect(stdout).toContain('✗ Grid (GRID_URL): http://127.0.0.1:9 does not answer /status');
  });

  it('names what the embedded Grid lacks with the command that fixes it, and exits 1', async () => {
    const { code, stdout } = await cli(['doctor'], { PATH: emptyPath, BROWSER_LOOPBACK_PORTS: '3000,8000-8010' });
    expect(code).toBe(1);
    expect(stdout).toContain('✗ Java 17: missing: apt-get install -y openjdk-17-jre-headless');
    expect(stdout).toMatch(/✓ Chromium: \/usr\/bin\/chromium/);
    expect(stdout).toContain('Loopback ports open to browsers: 3000, 8000-8010');
    // Run as root here: the proxy plus the firewall and the browsers' own OS user.
    expect(stdout).toContain(
      '✓ Fence: proxy + firewall + own OS user selenium-flow-grid (host ports closed but 3000,8000-8010)',
    );
    expect(stdout).toContain('required part is missing');
  });

  it('says plainly when BROWSER_FENCE=off leaves the browsers unfenced', async () => {
    const { stdout } = await cli(['doctor'], { PATH: process.env.PATH ?? '', BROWSER_FENCE: 'off' });
    expect(stdout).toContain('! Fence: NONE (BROWSER_FENCE=off): a page can run programs as you');
  });

  it("says a Grid at GRID_URL is fenced by this server's proxy, and where its nodes reach it", async () => {
    const here = await cli(['doctor'], { PATH: process.env.PATH ?? '', GRID_URL: 'http://127.0.0.1:9' });
    expect(here.stdout).toContain(
      "✓ Fence: proxy at 127.0.0.1:<a free port> for the Grid's browsers (every port of this host closed; private networks closed but none; the Grid's own closed)",
    );
    const placed = await cli(['doctor'], {
      PATH: process.env.PATH ?? '',
      GRID_URL: 'http://127.0.0.1:9',
      FENCE_ADDRESS: 'selenium-flow:4445',
      FENCE_ALLOW: '10.20.0.0/16',
      BROWSER_LOOPBACK_PORTS: '3000',
    });
    expect(placed.stdout).toContain(
      "✓ Fence: proxy at selenium-flow:4445 for the Grid's browsers (this host's ports closed but 3000; private networks closed but 10.20.0.0/16; the Grid's own closed)",
    );
  });

  it('says a Grid elsewhere needs FENCE_ADDRESS, and names BROWSER_FENCE=off for one left unfenced', async () => {
    const elsewhere = await cli(['doctor'], { PATH: process.env.PATH ?? '', GRID_URL: 'http://192.0.2.1:4444' });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stdout).toMatch(
      /✗ Fence: NONE: GRID_URL's nodes run on another host, and FENCE_ADDRESS is not set/,
    );
    const off = await cli(['doctor'], {
      PATH: process.env.PATH ?? '',
      GRID_URL: 'http://127.0.0.1:9',
      BROWSER_FENCE: 'off',
    });
    expect(off.stdout).toContain(
      "! Fence: NONE (BROWSER_FENCE=off): a page can reach its node's chromedriver and run programs there",
    );
  });
});

describe('selenium-flow setup', () => {
  it('checks each step with its progress and exits 0 on a host that has everything', async () => {
    const { code, stdout } = await cli(['setup'], { PATH: process.env.PATH ?? '' });
    expect(code).toBe(0);
    expect(stdout).toContain('[1/2] Debian packages');
    expect(stdout).toContain('[2/2] geckodriver');
  });

  it('is listed in --help with doctor', async () => {
    const { stdout } = await cli(['--help'], { PATH: process.env.PATH ?? '' });
    expect(stdout).toContain('selenium-flow setup');
    expect(stdout).toContain('selenium-flow doctor');
    expect(stdout).toContain('docker-selenium');
  });
});
