import { spawn, type ChildProcess } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gridAccount, type GridAccount } from '../../src/embedded-grid/account.js';
import { ownAddress } from '../../src/embedded-grid/browser-wrappers.js';
import { startBrowserProxy, type BrowserProxy } from '../../src/embedded-grid/proxy.js';
import { ANSWERS, browserAddress, REQUESTS } from '../../src/embedded-grid/proxy-registrations.js';

// The proxy's registration directory, attacked by the account its browsers' wrappers run as: the
// Grid's (selenium-flow-grid) when this runs as root, as the server does; this user otherwise
// (then there is no second account, and still no link may be followed). The account plants
// links to a file and a directory it cannot touch wherever it can write, and asks for addresses
// the proxy then answers: the file and the directory must come out untouched.

const asRoot = process.getuid?.() === 0;
let account: GridAccount | undefined;
let proxy: BrowserProxy;
let targets: string;
let precious: string;
let preciousDir: string;
const children: ChildProcess[] = [];

/** Runs `script` with sh as the wrappers' account, in a process group of its own; `args` become $1…. */
function asAccount(script: string, args: string[]): ChildProcess {
  const command = ['sh', '-c', script, 'sh', ...args];
  const child = account
    ? spawn(
        'setpriv',
        ['--reuid', String(account.uid), '--regid', String(account.gid), '--clear-groups', '--', ...command],
        { detached: true, stdio: ['pipe', 'pipe', 'inherit'] },
      )
    : spawn(command[0] ?? 'sh', command.slice(1), { detached: true, stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  return child;
}

function lines(child: ChildProcess): AsyncIterator<string> {
  if (!child.stdout) {
    throw new Error('no stdout');
  }
  return createInterface({ input: child.stdout })[Symbol.asyncIterator]();
}

async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await check()) {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('timed out');
}

/** What must not change: the file's bytes, size, mode and times; the directory's entries. */
async function fingerprint(): Promise<string> {
  const file = await stat(precious);
  const dir = await readdir(preciousDir);
  return JSON.stringify([await readFile(precious, 'utf8'), file.size, file.mode, file.mtimeMs, file.ctimeMs, dir]);
}

beforeAll(async () => {
  account = asRoot ? await gridAccount() : undefined;
  targets = await mkdtemp(join(tmpdir(), 'sf-precious-'));
  precious = join(targets, 'precious');
  preciousDir = join(targets, 'dir');
  await writeFile(precious, 'nobody may truncate this\n', { mode: 0o600 });
  await mkdir(preciousDir);
  await writeFile(join(preciousDir, 'keep'), 'kept\n');
  // As the server starts it: owned by the wrappers' account when root.
  proxy = await startBrowserProxy([], account ? { owner: account } : {});
});

afterAll(async () => {
  for (const child of children) {
    try {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await proxy?.stop();
  await rm(targets, { recursive: true, force: true });
});

describe("the proxy's registration directory, under its browsers' account", () => {
  it('follows no link the account plants, answering, refusing, sweeping or stopping', async () => {
    const before = await fingerprint();
    // Two live processes of the account's ask for addresses; the second one's address is taken,
    // so the proxy answers it `.failed`. Before asking, links named as both answers (and a
    // directory, and a link to one) go wherever the account can write.
    const attacker = asAccount(
      [
        'sleep 60 & p1=$!',
        'sleep 60 & p2=$!',
        'echo "$p1 $p2"',
        'read go',
        'for d in "$1" "$1/requests" "$1/answers"; do',
        '  for p in $p1 $p2; do',
        '    ln -s "$2" "$d/$p.ready" 2>/dev/null',
        '    ln -s "$2" "$d/$p.failed" 2>/dev/null',
        '  done',
        '  ln -s "$3" "$d/linked" 2>/dev/null',
        '  mkdir "$d/deep" 2>/dev/null && ln -s "$3" "$d/deep/linked" 2>/dev/null',
        'done',
        // A subshell each: a failed redirection would end dash itself.
        'for d in "$1" "$1/requests" "$1/answers"; do (: > "$d/$p1") 2>/dev/null; (: > "$d/$p2") 2>/dev/null; done',
        'echo asked',
        'wait',
      ].join('\n'),
      [proxy.clientsDir, precious, preciousDir],
    );
    const out = lines(attacker);
    const [p1, p2] = String((await out.next()).value)
      .split(' ')
      .map(Number);
    expect(p1).toBeGreaterThan(0);
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(proxy.port, browserAddress(p2 ?? 0), resolve));
    try {
      attacker.stdin?.write('go\n');
      expect((await out.next()).value).toBe('asked');
      // Asked from the account's own directory, answered in the proxy's.
      await until(() => proxy.browsers() === 1);
      const ready = join(proxy.clientsDir, ANSWERS, `${p1}.ready`);
      const failed = join(proxy.clientsDir, ANSWERS, `${p2}.failed`);
      await until(async () => (await lstat(failed).catch(() => undefined))?.isFile() === true);
      for (const answer of [ready, failed]) {
        const seen = await lstat(answer);
        expect(seen.isFile(), answer).toBe(true);
        expect(seen.uid).toBe(process.getuid?.());
      }
      expect(await readFile(failed, 'utf8')).toContain('EADDRINUSE');
      expect(await fingerprint()).toBe(before);
      if (account) {
        // The account writes its own directory alone: not the proxy's, nor its answers.
        expect((await readdir(proxy.clientsDir)).sort()).toEqual([ANSWERS, REQUESTS]);
        expect((await readdir(join(proxy.clientsDir, ANSWERS))).sort()).toEqual([`${p1}.ready`, `${p2}.failed`].sort());
        expect((await stat(join(proxy.clientsDir, REQUESTS))).uid).toBe(account.uid);
      }
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    // The processes end: the sweep forgets them (unlinking links, never what they name).
    process.kill(-(attacker.pid ?? 0), 'SIGKILL');
    await until(() => proxy.browsers() === 0);
    const answered = [`${p1}.ready`, `${p2}.failed`];
    await until(async () => !(await readdir(join(proxy.clientsDir, ANSWERS))).some((n) => answered.includes(n)), 6_000);
    expect(await fingerprint()).toBe(before);
  });

  it("still answers the real wrapper's registration, which reads its answer as the account", async () => {
    const wrapper = asAccount([...ownAddress(proxy.clientsDir), 'echo "$sf_addr"', 'exec sleep 60'].join('\n'), []);
    const address = String((await lines(wrapper).next()).value);
    expect(address).toMatch(/^127\.\d+\.\d+\.\d+$/);
    expect(address).toBe(browserAddress(wrapper.pid ?? 0));
    // The proxy listens there: a request to this host's closed port is refused by the fence.
    const answer = await new Promise<string>((resolve) => {
      const socket = connect({ host: address, port: proxy.port });
      socket.once('data', (chunk) => resolve(chunk.toString()));
      socket.on('error', () => resolve(''));
      socket.write('CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n');
    });
    expect(answer).toMatch(/^HTTP\/1\.1 403/);
  });

  it('leaves what the account made in its own directory, and removes the rest, at stop', async () => {
    const before = await fingerprint();
    const planted = asAccount(
      [
        'mkdir -p "$1/deep/deeper" && ln -sfn "$2" "$1/deep/linked" && ln -sfn "$2" "$1/linked" && : > "$1/12345"',
        'echo done',
      ].join('\n'),
      [join(proxy.clientsDir, REQUESTS), preciousDir],
    );
    expect((await lines(planted).next()).value).toBe('done');
    const dir = proxy.clientsDir;
    await proxy.stop();
    expect(await fingerprint()).toBe(before);
    // Never descended into: the account's own directory stays, in its own REQUESTS.
    expect(await readdir(join(dir, REQUESTS))).toEqual(['deep']);
    await rm(dir, { recursive: true, force: true });
  });
});
