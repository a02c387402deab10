import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { readableJar, type Launch } from './launch.js';
import { NFT } from './paths.js';

const STOP_TIMEOUT_MS = 30_000;

export interface SupervisedProcess {
  /** the supervisor: it exits once its JVM's whole process group has ended */
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The supervisor, a few lines of plain Node run with `node -e`, as the server's user: it starts
 * the JVM in a process group of its own (under the Grid's account when there is one, with a
 * minimal environment), and ends that whole group (chromedrivers and browsers too) as soon as
 * its stdin closes. Its stdin is a pipe from the server, so the Grid ends even when the server
 * is killed with SIGKILL; then it removes the firewall table and the work directory.
 */
const SUPERVISOR = `
const { spawn, execFileSync } = require('node:child_process');
const { rmSync } = require('node:fs');
const spec = JSON.parse(process.argv[1]);
const child = spawn(spec.command, spec.args, { cwd: spec.dir, env: spec.env, uid: spec.uid, gid: spec.gid, detached: true, stdio: ['ignore', 'inherit', 'inherit'] });
const alive = () => { try { process.kill(-child.pid, 0); return true; } catch { return false; } };
const signal = (name) => { try { process.kill(-child.pid, name); } catch {} };
let code = 0;
let ending = false;
const end = () => {
  if (ending) return;
  ending = true;
  signal('SIGTERM');
  const started = Date.now();
  const timer = setInterval(() => {
    if (alive() && Date.now() - started > 10000) signal('SIGKILL');
    if (alive() && Date.now() - started < 20000) return;
    clearInterval(timer);
    if (spec.firewallTable) { try { execFileSync(spec.nft, ['delete', 'table', 'inet', spec.firewallTable], { stdio: 'ignore' }); } catch {} }
    try { rmSync(spec.dir, { recursive: true, force: true, maxRetries: 3 }); } catch {}
    process.exit(code);
  }, 50);
};
child.on('error', () => { code = 127; end(); });
child.on('exit', (exitCode, signalName) => { code = exitCode ?? (signalName ? 128 : 1); end(); });
process.stdin.on('end', end);
process.stdin.on('error', end);
process.stdin.resume();
for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(name, end);
`;

export async function superviseJava(
  launch: Launch,
  workDir: string,
  args: string[],
  heap: string,
  firewallTable: string | undefined,
  env: Record<string, string> = {},
): Promise<SupervisedProcess> {
  const jarPath = await readableJar(launch, workDir);
  // java.io.tmpdir keeps the node's download folders and Chromium's profiles inside workDir.
  const javaArgs = [heap, `-Djava.io.tmpdir=${workDir}`, '-jar', jarPath, ...args];
  return superviseCommand(launch, workDir, launch.java, javaArgs, firewallTable, env);
}

/** `command` under the supervisor, in `workDir`, as the Grid's account, with a minimal environment. */
export function superviseCommand(
  launch: Launch,
  workDir: string,
  command: string,
  args: string[],
  firewallTable: string | undefined,
  env: Record<string, string> = {},
): SupervisedProcess {
  const spec = {
    command,
    args,
    dir: workDir,
    // Nothing of the server's environment (tokens, Redis URL, secrets) reaches the Grid or a browser.
    // `env` adds only what a process must know (a node's display and the SE_* variables that advertise it).
    env: { ...env, HOME: workDir, PATH: '/usr/bin:/bin', TMPDIR: workDir, LANG: 'C.UTF-8' },
    uid: launch.account?.uid,
    gid: launch.account?.gid,
    firewallTable,
    nft: NFT,
  };
  const child = spawn(process.execPath, ['-e', SUPERVISOR, JSON.stringify(spec)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: '/usr/bin:/bin' },
  });
  launch.log.follow(child);
  // Every process of the Grid descends from a supervisor: another instance's fence refuses their ports.
  void launch.notice.add({ roots: [child.pid] });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (hasExited(child)) {
        return;
      }
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin?.end();
      // Cancelled once the child exits: a pending 30 s timer would hold the test runner's process open.
      const cancel = new AbortController();
      const timeout = delay(STOP_TIMEOUT_MS, 'timeout' as const, { signal: cancel.signal }).catch(() => undefined);
      const ended = await Promise.race([exited, timeout]);
      cancel.abort();
      if (ended === 'timeout') {
        child.kill('SIGKILL');
      }
      // A browser's crash handler may still hold the write end of the log pipes; nothing more is read.
      child.stdout?.destroy();
      child.stderr?.destroy();
    })();
    return stopping;
  };
  return { child, stop };
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

export async function outputDrained(child: ChildProcess): Promise<void> {
  // 'exit' can come before the last lines are read from the pipes, and those explain the failure.
  if ((child.stdout?.closed ?? true) && (child.stderr?.closed ?? true)) {
    return;
  }
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  await Promise.race([closed, delay(1_000, undefined, { ref: false })]);
}

export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
}

export function exitDescription(child: ChildProcess): string {
  if (child.pid === undefined) {
    return 'java could not be started';
  }
  return child.signalCode !== null ? `signal ${child.signalCode}` : `exit code ${child.exitCode}`;
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

export function runWithInput(command: string, args: string[], input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(stderr.trim() || `exit code ${code}`))));
    child.stdin.end(input);
  });
}

export function firstLine(error: unknown): string {
  const stderr = typeof error === 'object' && error !== null && 'stderr' in error ? error.stderr : undefined;
  const text =
    typeof stderr === 'string' && stderr.trim() !== ''
      ? stderr
      : error instanceof Error
        ? error.message
        : String(error);
  return text.trim().split('\n')[0] ?? '';
}
