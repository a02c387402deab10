import type { ChildProcess } from 'node:child_process';
import { chown, copyFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { readableBy, type GridAccount } from './account.js';
import type { InstanceNotice } from './neighbours.js';
import type { BrowserSandbox } from './sandbox.js';

/** What every process of one embedded Grid shares. */
export interface Launch {
  jarPath: string;
  java: string;
  account: GridAccount | undefined;
  /** the nftables table fencing this Grid's browsers off the host, removed with the Grid */
  firewallTable: string | undefined;
  /** the port of the proxy every browser must use; undefined only when BROWSER_FENCE=off */
  proxyPort: number | undefined;
  /** where each browser's wrapper asks the proxy for an address of its own (proxy.ts) */
  proxyClients: string | undefined;
  credentials: { username: string; password: string };
  log: RecentLines;
  /** undefined when this host cannot run Firefox: then `firefoxMissing` says what to install */
  geckodriver: string | undefined;
  firefoxMissing: string | undefined;
  /** each browser's own sandbox (sandbox.ts); undefined where none can run, and then no slot is watchable */
  sandbox: BrowserSandbox | undefined;
  /** what this instance says of itself to the others on this host: each supervisor's process is a root of its Grid's */
  notice: InstanceNotice;
}

/**
 * The Grid's user must read the jar; a jar under a private directory (root's home) is copied
 * into the Grid's own directory.
 */
export async function readableJar(launch: Launch, workDir: string): Promise<string> {
  if (!launch.account || (await readableBy(launch.account, launch.jarPath))) {
    return launch.jarPath;
  }
  const copy = join(workDir, basename(launch.jarPath));
  await copyFile(launch.jarPath, copy);
  await chown(copy, launch.account.uid, launch.account.gid);
  return copy;
}

export async function writePrivate(path: string, content: string, account: GridAccount | undefined): Promise<void> {
  await writeFile(path, content, { mode: 0o600 });
  if (account) {
    await chown(path, account.uid, account.gid);
  }
}

/** A private directory for one Grid process, owned by the account it runs as. */
export async function gridWorkDir(name: string, account: GridAccount | undefined): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `selenium-flow-${name}-`));
  if (account) {
    await chown(dir, account.uid, account.gid);
  }
  return dir;
}

export class RecentLines {
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
