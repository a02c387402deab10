import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRID_USER } from '../../src/embedded-grid/account.js';
import { instanceRefusal } from '../../src/embedded-grid/listeners.js';
import { INSTANCES_DIR, InstanceNotice } from '../../src/embedded-grid/neighbours.js';
import { startBrowserProxy, type BrowserProxy } from '../../src/embedded-grid/proxy.js';

// Two selenium-flow instances on one host, each opening a port range to its browsers: a port of
// the other's (a Grid's process, its server's) lands in that range. The proxy must refuse it
// while it still opens a plain site on the same range. Each "Grid" here is a real process tree
// (a supervisor standing in, and a listener below it), announced as an instance announces its own.

const asRoot = process.getuid?.() === 0;
/** How long the entries read are trusted (neighbours.ts): a check after a change waits it out. */
const READ_TTL_MS = 1_100;

/** A Node the account can run: this run's own may sit in a home only root enters (CI's Node 22/24). */
function nodeFor(account: string): string {
  const drop = ['--reuid', account, '--regid', account, '--clear-groups', '--'];
  for (const node of [process.execPath, '/usr/bin/node', '/usr/local/bin/node']) {
    try {
      const spawnsItself = `require('node:child_process').execFileSync(process.execPath, ['-e', ''])`;
      execFileSync('setpriv', [...drop, node, '-e', spawnsItself], { stdio: 'ignore' });
      return node;
    } catch {
      // not runnable by the account: try the next
    }
  }
  throw new Error(`no Node that ${account} can run`);
}

/** A process that listens on a free loopback port, below a parent (the "supervisor") that only waits. */
async function gridProcess(as?: string): Promise<{ root: ChildProcess; port: number }> {
  const listen = `require('node:net').createServer(() => {}).listen(0, '127.0.0.1', function () { process.stdout.write(String(this.address().port)); });`;
  const child = `const c = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(listen)}], { stdio: ['ignore', 'inherit', 'ignore'] }); process.on('SIGTERM', () => { c.kill(); process.exit(); });`;
  const command = as ? 'setpriv' : process.execPath;
  const args = as ? ['--reuid', as, '--regid', as, '--clear-groups', '--', nodeFor(as), '-e', child] : ['-e', child];
  const root = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise<number>((resolve, reject) => {
    root.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk)));
    root.once('exit', (code) => reject(new Error(`the listener's parent ended (${code}) before listening`)));
  });
  return { root, port };
}

function connectThrough(proxy: BrowserProxy, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: proxy.port });
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      socket.destroy();
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(answer));
    socket.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  });
}

let site: Server;
let sitePort: number;
let proxy: BrowserProxy;
let notice: InstanceNotice;
const children: ChildProcess[] = [];

beforeAll(async () => {
  site = createServer((_req, res) => res.end('site'));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as AddressInfo).port;
  // Every port a test listener may take is open: only who holds a port decides.
  proxy = await startBrowserProxy([{ from: 1024, to: 65_535 }]);
  notice = await InstanceNotice.open();
});

afterAll(async () => {
  for (const child of children) {
    child.kill();
  }
  await notice?.withdraw();
  await proxy?.stop();
  await new Promise((resolve) => site.close(resolve));
});

describe('a fence beside other selenium-flow instances', () => {
  it('writes one readable entry per notice, and withdraws it', async () => {
    const other = await InstanceNotice.open();
    await other.add({ ports: [4321], roots: [process.pid] });
    const entries = await Promise.all(
      (await readdir(INSTANCES_DIR))
        .filter((name) => name.startsWith(`${process.pid}-`))
        .map(async (name) => JSON.parse(await readFile(`${INSTANCES_DIR}/${name}`, 'utf8')) as { ports: number[] }),
    );
    expect(entries.some((entry) => entry.ports.includes(4321))).toBe(true);
    await other.withdraw();
    const left = (await readdir(INSTANCES_DIR)).filter((name) => name.startsWith(`${process.pid}-`));
    expect(left).toHaveLength(1);
  });

  it("refuses every port a Grid's process holds, and the ports an instance names; opens a site on the same range", async () => {
    const grid = await gridProcess();
    children.push(grid.root);
    const unannounced = await gridProcess();
    children.push(unannounced.root);
    await notice.add({ roots: [grid.root.pid], ports: [proxy.port] });
    await delay(READ_TTL_MS);
    expect(await instanceRefusal(grid.port)).toMatch(/^port \d+ of this host is a selenium-flow Grid's/);
    expect(await instanceRefusal(proxy.port)).toMatch(/server's or fence's/);
    expect(await instanceRefusal(sitePort)).toBeUndefined();
    expect(await instanceRefusal(unannounced.port)).toBeUndefined();
    // Through the proxy, as a browser asks.
    expect(await connectThrough(proxy, grid.port)).toMatch(/^HTTP\/1\.1 403 [\s\S]*selenium-flow Grid's/);
    expect(await connectThrough(proxy, sitePort)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await connectThrough(proxy, unannounced.port)).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('forgets an instance whose process ended without withdrawing', async () => {
    const first = await gridProcess();
    const second = await gridProcess();
    children.push(first.root, second.root);
    // An entry written by another process, which then dies without withdrawing it.
    const writer = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import('./src/embedded-grid/neighbours.ts').then(async ({ InstanceNotice }) => { const n = await InstanceNotice.open(); await n.add({ roots: [${first.root.pid}, ${second.root.pid}] }); process.stdout.write('written'); setInterval(() => {}, 1000); });`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => writer.stdout?.once('data', resolve));
    await delay(READ_TTL_MS);
    expect(await instanceRefusal(first.port)).toMatch(/a selenium-flow Grid's/);
    writer.kill('SIGKILL');
    await new Promise((resolve) => writer.once('exit', resolve));
    await delay(READ_TTL_MS);
    expect(await instanceRefusal(second.port)).toBeUndefined();
    expect((await readdir(INSTANCES_DIR)).filter((name) => name.startsWith(`${writer.pid}-`))).toEqual([]);
  });

  it.runIf(asRoot)("refuses a port held by the root Grids' account, announced or not", async () => {
    try {
      execFileSync('getent', ['passwd', GRID_USER]);
    } catch {
      return;
    }
    const grid = await gridProcess(GRID_USER);
    children.push(grid.root);
    expect(await instanceRefusal(grid.port)).toMatch(new RegExp(`a selenium-flow Grid's \\(${GRID_USER}`));
    expect(await connectThrough(proxy, grid.port)).toMatch(/^HTTP\/1\.1 403 /);
  });
});
