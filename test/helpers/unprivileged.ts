import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * selenium-flow as people run it: `npm start` or `stdio` as themselves, not root. Then there is no
 * second OS user and no nftables table, and the browsers run as that user too.
 */
export const UNPRIVILEGED_USER = 'sf-unprivileged';

export function ensureUnprivilegedUser(): { uid: number; gid: number } {
  try {
    execFileSync('getent', ['passwd', UNPRIVILEGED_USER]);
  } catch {
    execFileSync('useradd', [
      '--system',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      UNPRIVILEGED_USER,
    ]);
  }
  const [, , uid, gid] = execFileSync('getent', ['passwd', UNPRIVILEGED_USER]).toString().trim().split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export interface UnprivilegedServer {
  /** the user's home for this run (0700 … of theirs), which the test removes */
  home: string;
  base: string;
  /** the server's process (setpriv execs it): its Grid's processes run below it */
  pid: number;
  /** what it printed, banner and log */
  output(): string;
  stop(): Promise<void>;
}

/** A private home of the user's, for the files the test gives the server before it starts. */
export async function unprivilegedHome(): Promise<string> {
  const { uid, gid } = ensureUnprivilegedUser();
  const home = await mkdtemp(join(tmpdir(), 'sf-unprivileged-'));
  await chown(home, uid, gid);
  return home;
}

/**
 * `selenium-flow serve` from this checkout as the user (one process, through tsx, whose children,
 * the Grid included, are the user's too), answering once its banner names its MCP URL.
 */
export async function serveAsUnprivileged(home: string, env: Record<string, string>): Promise<UnprivilegedServer> {
  const server: ChildProcess = spawn(
    'setpriv',
    [
      '--reuid',
      UNPRIVILEGED_USER,
      '--regid',
      UNPRIVILEGED_USER,
      '--init-groups',
      '--',
      process.execPath,
      '--import',
      'tsx',
      'src/cli.ts',
      'serve',
    ],
    {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        LOG_LEVEL: 'warn',
        SE_OFFLINE: 'true',
        PORT: '0',
        SECRETS_KUBERNETES: 'off',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let printed = '';
  server.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  server.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not serve within 90 s:\n${printed}`)), 90_000);
    server.stdout?.on('data', () => {
      const match = /MCP:\s+(http:\/\/[^/\s]+)\/mcp/.exec(printed);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    server.once('exit', () => reject(new Error(`the server exited before serving:\n${printed}`)));
  });
  return {
    home,
    base,
    pid: server.pid ?? -1,
    output: () => printed,
    stop: async () => {
      if (server.exitCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGTERM');
        await exited;
      }
    },
  };
}
