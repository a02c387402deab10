import { execFileSync, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { rest } from '../helpers/server.js';

// `selenium-flow serve` without GRID_URL starts its own Grid. Killed with SIGKILL, it runs no
// cleanup at all: the Grid's supervisor, reading a pipe from the server, must end it anyway.

/** Every process below `root`, from /proc (ppid links). */
async function descendants(root: number): Promise<Map<number, string>> {
  const parents = new Map<number, number>();
  const commands = new Map<number, string>();
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) {
      continue;
    }
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(pid, ppid);
    commands.set(pid, (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' '));
  }
  const found = new Map<number, string>();
  let frontier = [root];
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const [pid, ppid] of parents) {
      if (frontier.includes(ppid) && !found.has(pid)) {
        found.set(pid, commands.get(pid) ?? '');
        next.push(pid);
      }
    }
    frontier = next;
  }
  return found;
}

/** Running, not a zombie waiting for whoever adopted it to reap it. */
async function isAlive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

async function alive(pids: number[]): Promise<number[]> {
  const states = await Promise.all(pids.map(isAlive));
  return pids.filter((_, i) => states[i]);
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the embedded Grid', () => {
  it('never outlives its server, even one killed with SIGKILL', { timeout: 90_000 }, async () => {
    // node --import tsx: one process, so SIGKILL reaches the server itself (npx would leave it running).
    const server = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', '0'], {
      // No fixture port open: its firewall keys on its own browser group, so the shared test Grid's
      // browsers keep theirs while it runs.
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/root',
        LOG_LEVEL: 'warn',
        SE_OFFLINE: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const base = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the server did not serve within 60 s:\n${output}`)), 60_000);
        server.stdout.on('data', () => {
          const match = /MCP:\s+(http:\/\/[^/\s]+)\/mcp/.exec(output);
          if (match?.[1]) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
        server.once('exit', () => reject(new Error(`the server exited before serving:\n${output}`)));
      });
      const opened = await rest(base, '/browser/open-session', {});
      expect(opened.status).toBe(200);
      const tree = await descendants(server.pid ?? -1);
      const java = [...tree].find(([, command]) => /^\S*java .*selenium-server/.test(command));
      const gridPort = Number(/--port (\d+)/.exec(java?.[1] ?? '')?.[1]);
      expect(await portOpen(gridPort)).toBe(true);
      expect([...tree.values()].some((command) => command.includes('/chromium'))).toBe(true);
      expect(execFileSync('nft', ['list', 'tables']).toString()).toContain(`selenium_flow_${gridPort}`);

      server.kill('SIGKILL');
      const deadline = Date.now() + 20_000;
      let left = await alive([...tree.keys()]);
      while ((left.length > 0 || (await portOpen(gridPort))) && Date.now() < deadline) {
        await delay(100);
        left = await alive([...tree.keys()]);
      }
      expect(left.map((pid) => tree.get(pid))).toEqual([]);
      expect(await portOpen(gridPort)).toBe(false);
      // The supervisor removed the firewall table it was given.
      expect(execFileSync('nft', ['list', 'tables']).toString()).not.toContain(`selenium_flow_${gridPort}`);
    } finally {
      server.kill('SIGKILL');
    }
  });
});
