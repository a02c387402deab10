import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserProxy, type BrowserProxy } from '../../src/embedded-grid/proxy.js';
import { ANSWERS, BROWSER_ADDRESS_SH, browserAddress, REQUESTS } from '../../src/embedded-grid/proxy-registrations.js';
import { LOOKUP_DEADLINE_MS } from '../../src/embedded-grid/proxy-names.js';
import { startDns, type TestDns } from '../helpers/dns-server.js';

// The real proxy on loopback, spoken to as a browser speaks to it (raw HTTP over TCP); the one
// allowed port is a real server's.
let site: Server;
let sitePort: number;
let proxy: BrowserProxy;
const PER_BROWSER = 3;

/** Sends `text` to the proxy at `host` and resolves with all it answered until it closed (or what came within `waitMs`). */
function ask(text: string, host = '127.0.0.1', on: BrowserProxy = proxy, waitMs = 1_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port: on.port });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.setTimeout(waitMs, () => {
      socket.destroy();
      resolve(answer);
    });
    socket.write(text);
  });
}

/** Sends `text` to the proxy at `host` and resolves with the first thing it answers ('' if nothing within `waitMs`), then hangs up. */
function firstAnswer(text: string, host = '127.0.0.1', on: BrowserProxy = proxy, waitMs = 1_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port: on.port });
    const done = (answer: string) => {
      socket.destroy();
      resolve(answer);
    };
    socket.once('data', (chunk) => done(chunk.toString()));
    socket.on('error', () => done(''));
    socket.on('close', () => done(''));
    socket.setTimeout(waitMs, () => done(''));
    socket.write(text);
  });
}

/** Opens a tunnel to the site and keeps it; resolves with the proxy's first answer line. */
function hold(host: string): Promise<{ line: string; close(): void }> {
  return new Promise((resolve) => {
    const socket = connect({ host, port: proxy.port });
    socket.once('data', (chunk) => resolve({ line: chunk.toString(), close: () => socket.destroy() }));
    socket.on('error', () => resolve({ line: '', close: () => undefined }));
    socket.write(`CONNECT 127.0.0.1:${sitePort} HTTP/1.1\r\nHost: 127.0.0.1:${sitePort}\r\n\r\n`);
  });
}

/** Registers `pid` as its wrapper does, and waits for the proxy's answer. */
async function registered(pid: number, on: BrowserProxy = proxy): Promise<void> {
  await writeFile(join(on.clientsDir, REQUESTS, String(pid)), '');
  for (let i = 0; i < 100 && !existsSync(join(on.clientsDir, ANSWERS, `${pid}.ready`)); i += 1) {
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  site = createServer((_req, res) => res.end('site answered'));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as AddressInfo).port;
  proxy = await startBrowserProxy([{ from: sitePort, to: sitePort }], { perBrowser: PER_BROWSER });
});

afterAll(async () => {
  await proxy?.stop();
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
});

describe("the browsers' proxy decides", () => {
  it('forwards to an allowed loopback port, by address and by any *.localhost name', async () => {
    expect(
      await ask(`GET http://127.0.0.1:${sitePort}/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
    ).toMatch(/^HTTP\/1\.1 200[\s\S]*site answered$/);
    // The system resolver knows no app.test.localhost: the proxy answers as the browsers would.
    expect(await ask(`CONNECT app.test.localhost:${sitePort} HTTP/1.1\r\n\r\n`)).toMatch(
      /^HTTP\/1\.1 200 Connection Established/,
    );
  });

  it('refuses every other port of this host, under any spelling, and the metadata service on any port', async () => {
    const closed = sitePort === 65_535 ? sitePort - 1 : sitePort + 1;
    for (const target of [`127.0.0.1:${closed}`, `[::1]:${closed}`, `api.localhost:${closed}`, `0.0.0.0:${closed}`]) {
      const answer = await ask(`CONNECT ${target} HTTP/1.1\r\n\r\n`);
      expect(answer, target).toMatch(/^HTTP\/1\.1 403 Forbidden/);
      expect(answer, target).toContain(`BROWSER_LOOPBACK_PORTS (now: ${sitePort})`);
    }
    expect(await ask('CONNECT 169.254.169.254:80 HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 403[\s\S]*metadata/);
    expect(await ask('CONNECT nonsense HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
  });

  it("shows a refused navigation as a page, and fails a page's own refused request as a closed port", async () => {
    const navigation = await ask(
      `GET http://127.0.0.1:9/ HTTP/1.1\r\nHost: 127.0.0.1:9\r\nSec-Fetch-Mode: navigate\r\n\r\n`,
    );
    expect(navigation).toMatch(/^HTTP\/1\.1 403[\s\S]*<title>selenium-flow proxy: ERR_PORT_CLOSED/);
    expect(await ask(`GET http://127.0.0.1:9/ HTTP/1.1\r\nHost: 127.0.0.1:9\r\nSec-Fetch-Mode: cors\r\n\r\n`)).toBe('');
  });
});

describe('each browser its own address and its own share of connections', () => {
  it('computes the same address in the wrapper (sh) as in the proxy', async () => {
    for (const pid of [1, 255, 256, 65_535, 65_536, 4_194_303]) {
      const { stdout } = await promisify(execFile)('sh', [
        '-c',
        `sf_pid=${pid}; ${BROWSER_ADDRESS_SH}; echo "$sf_addr"`,
      ]);
      expect(stdout.trim(), String(pid)).toBe(browserAddress(pid));
    }
    expect(browserAddress(1)).toBe('127.1.0.1');
    expect(browserAddress(4_194_303)).toBe('127.64.255.255');
  });

  it('refuses a browser over its cap, clearly, while another browser keeps its own', async () => {
    // Two live processes stand for two browsers: this one and a sleeping child.
    const other = spawn('sleep', ['30']);
    try {
      await registered(process.pid);
      await registered(other.pid ?? 0);
      expect(proxy.browsers()).toBe(2);
      const mine = browserAddress(process.pid);
      const held = await Promise.all(Array.from({ length: PER_BROWSER }, () => hold(mine)));
      expect(held.map((h) => h.line.split('\r\n')[0])).toEqual(
        Array.from({ length: PER_BROWSER }, () => 'HTTP/1.1 200 Connection Established'),
      );
      const over = await hold(mine);
      expect(over.line).toMatch(/^HTTP\/1\.1 429 Too Many Requests/);
      expect(over.line).toContain(`this browser already holds ${PER_BROWSER} connections through its proxy`);
      // The other browser is untouched by the first one's exhaustion.
      expect(
        await ask(
          `GET http://127.0.0.1:${sitePort}/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
          browserAddress(other.pid ?? 0),
        ),
      ).toMatch(/site answered$/);
      // One closed: the first browser may open one again.
      held[0]?.close();
      await new Promise((r) => setTimeout(r, 100));
      const again = await hold(mine);
      expect(again.line).toMatch(/^HTTP\/1\.1 200/);
      for (const h of [...held, again]) {
        h.close();
      }
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('gives an ended browser’s address back', async () => {
    const brief = spawn('sleep', ['0.2']);
    const pid = brief.pid ?? 0;
    await registered(pid);
    const ready = join(proxy.clientsDir, ANSWERS, `${pid}.ready`);
    expect(existsSync(ready)).toBe(true);
    await new Promise((resolve) => brief.once('exit', resolve));
    for (let i = 0; i < 60 && existsSync(ready); i += 1) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(existsSync(ready)).toBe(false);
    expect(existsSync(join(proxy.clientsDir, REQUESTS, String(pid)))).toBe(false);
    expect(await ask('CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n', browserAddress(pid))).toBe('');
  });
});

describe('every spelling of an address is read one way before the fence decides', () => {
  let control: ReturnType<typeof createTcpServer>;
  let closed: number;
  let reached = 0;

  beforeAll(async () => {
    // A listener on every address of this host (dual stack), on a port the fence closes: it counts what reaches it.
    control = createTcpServer((socket) => {
      reached += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => control.listen(0, '::', resolve));
    closed = (control.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => control?.close(resolve));
  });

  /** Spellings of this host a raw request may carry: the forms of the finding, and this host's own interface addresses. */
  const HOST_SPELLINGS = [
    '127.0.0.1',
    '[::ffff:127.0.0.1]',
    '[0::ffff:7f00:1]',
    '[0:0:0:0:0:FFFF:7F00:0001]',
    '[::127.0.0.1]',
    '[::7f00:1]',
    '[64:ff9b::7f00:1]',
    '[::ffff:0:7f00:1]',
    '2130706433',
    '0x7f000001',
    '0177.0.0.1',
    '127.1',
    '0x7f.1',
    '127.0.0.1.',
    'localhost',
    'localhost.',
    'LOCALHOST',
    'foo.localhost.',
    '0.0.0.0',
    '0',
    '[::]',
    '[::1]',
    ...Object.values(networkInterfaces())
      .flat()
      .flatMap((i) => (i && !i.address.startsWith('fe80') ? [i.family === 'IPv6' ? `[${i.address}]` : i.address] : [])),
  ];

  it('refuses this host under every spelling, on CONNECT and on an absolute URI, and nothing reaches it', async () => {
    for (const host of HOST_SPELLINGS) {
      const tunnel = await ask(`CONNECT ${host}:${closed} HTTP/1.1\r\n\r\n`);
      expect(tunnel, host).toMatch(/^HTTP\/1\.1 403 Forbidden/);
      expect(tunnel, host).toContain(`port ${closed} of this host is closed to the browsers`);
      const page = await ask(
        `GET http://${host}:${closed}/ HTTP/1.1\r\nHost: ${host}\r\nSec-Fetch-Mode: navigate\r\n\r\n`,
      );
      expect(page, host).toMatch(/^HTTP\/1\.1 403[\s\S]*ERR_PORT_CLOSED/);
    }
    expect(reached).toBe(0);
  });

  it('reads the odd spellings as the same address: the one open port answers under each', async () => {
    for (const host of ['[0::ffff:7f00:1]', '2130706433', '0x7f.1', '0177.0.0.1', '127.0.0.1.', 'LOCALHOST']) {
      expect(await firstAnswer(`CONNECT ${host}:${sitePort} HTTP/1.1\r\n\r\n`), host).toMatch(/^HTTP\/1\.1 200/);
    }
  });

  it('refuses the metadata service under every spelling, on every port', async () => {
    for (const host of [
      '169.254.169.254',
      '2852039166',
      '0xa9fea9fe',
      '0251.0376.0251.0376',
      '169.254.43518',
      '169.254.169.254.',
      '[::ffff:169.254.169.254]',
      '[0::ffff:a9fe:a9fe]',
      '[::a9fe:a9fe]',
      '[64:ff9b::a9fe:a9fe]',
      '[fd00:ec2::254]',
    ]) {
      expect(await ask(`CONNECT ${host}:${sitePort} HTTP/1.1\r\n\r\n`), host).toMatch(/^HTTP\/1\.1 403[\s\S]*metadata/);
    }
  });

  it('refuses what cannot be read one way (zone ids, empty labels, numbers that are no IPv4 address)', async () => {
    for (const host of [
      '[fe80::1%eth0]',
      '[::1%25lo]',
      '[127.0.0.1]',
      '127.0.0.1..',
      'a..localhost',
      '09.0.0.1',
      '1.2.3.4.5',
    ]) {
      const answer = await ask(`CONNECT ${host}:${closed} HTTP/1.1\r\n\r\n`);
      expect(answer, host).toMatch(/^HTTP\/1\.1 403 Forbidden/);
      expect(answer, host).toContain("Refused by selenium-flow's fence: that host can be read more than one way");
    }
    expect(reached).toBe(0);
  });
});

describe('names: resolved without threads, each browser its own share of lookups', () => {
  const LOOKUPS = 3;
  let dns: TestDns;
  let named: BrowserProxy;
  let hostsDir: string;
  /** A's name that answers 192.0.2.1 once, then this host: a rebinding attempt */
  let flips = 0;

  beforeAll(async () => {
    dns = await startDns((name) => {
      if (name.endsWith('.hang.test')) {
        return 'hang';
      }
      if (name.endsWith('.answer.test')) {
        return ['127.0.0.1'];
      }
      if (name === 'flip.test') {
        flips += 1;
        return flips === 1 ? ['192.0.2.1'] : ['127.0.0.1'];
      }
      return 'nxdomain';
    });
    hostsDir = await mkdtemp(join(tmpdir(), 'sf-hosts-'));
    await writeFile(join(hostsDir, 'hosts'), '127.0.0.1 site.hosts.test # a comment\n::1 six.hosts.test\n');
    named = await startBrowserProxy([{ from: sitePort, to: sitePort }], {
      names: { servers: [dns.server], hostsFile: join(hostsDir, 'hosts'), perBrowser: LOOKUPS },
    });
  });

  afterAll(async () => {
    await named?.stop();
    await dns?.close();
    await rm(hostsDir, { recursive: true, force: true });
  });

  const connectTo = (name: string, port = sitePort) => `CONNECT ${name}:${port} HTTP/1.1\r\n\r\n`;

  it('resolves a name through the DNS server it was given, and through the hosts file first', async () => {
    expect(await firstAnswer(connectTo('site.answer.test'), '127.0.0.1', named)).toMatch(/^HTTP\/1\.1 200/);
    expect(dns.queries.map((q) => `${q.type} ${q.name}`).sort()).toEqual([
      'A site.answer.test',
      'AAAA site.answer.test',
    ]);
    expect(await firstAnswer(connectTo('SITE.hosts.test.'), '127.0.0.1', named)).toMatch(/^HTTP\/1\.1 200/);
    expect(await ask(connectTo('six.hosts.test', 1), '127.0.0.1', named)).toMatch(
      /^HTTP\/1\.1 403[\s\S]*port 1 of this host is closed/,
    );
    expect(dns.queries.some((q) => q.name.endsWith('hosts.test'))).toBe(false);
    expect(await ask(connectTo('nowhere.test'), '127.0.0.1', named)).toMatch(/^HTTP\/1\.1 502[\s\S]*No such host name/);
  });

  it('ends a lookup its DNS never answers within the deadline, saying so', async () => {
    const started = Date.now();
    const answer = await ask(connectTo('once.hang.test'), '127.0.0.1', named, LOOKUP_DEADLINE_MS + 3_000);
    expect(answer).toMatch(/^HTTP\/1\.1 502[\s\S]*no DNS server answered for it in time/);
    expect(Date.now() - started).toBeLessThan(LOOKUP_DEADLINE_MS + 1_000);
    expect(dns.queries.some((q) => q.name === 'once.hang.test')).toBe(true);
  });

  it('caps the lookups one browser waits on, refusing the rest at once, while another browser resolves at speed', async () => {
    const other = spawn('sleep', ['30']);
    try {
      await registered(process.pid, named);
      await registered(other.pid ?? 0, named);
      const mine = browserAddress(process.pid);
      const hanging = Array.from({ length: LOOKUPS }, (_, i) =>
        ask(connectTo(`h${i}.hang.test`), mine, named, LOOKUP_DEADLINE_MS + 3_000),
      );
      await new Promise((r) => setTimeout(r, 200));
      let started = Date.now();
      const over = await ask(connectTo('over.hang.test'), mine, named);
      expect(Date.now() - started).toBeLessThan(500);
      expect(over).toMatch(/^HTTP\/1\.1 429 Too Many Requests/);
      expect(over).toContain(`this browser already waits on ${LOOKUPS} name lookups through its proxy`);
      expect(dns.queries.some((q) => q.name === 'over.hang.test')).toBe(false);
      // The other browser, and the server's own file reads (libuv's threads), wait on none of them.
      started = Date.now();
      expect(await firstAnswer(connectTo('b.answer.test'), browserAddress(other.pid ?? 0), named)).toMatch(
        /^HTTP\/1\.1 200/,
      );
      await Promise.all(Array.from({ length: 8 }, () => readFile(join(hostsDir, 'hosts'))));
      expect(Date.now() - started).toBeLessThan(500);
      // Once they ended, the first browser resolves again.
      expect((await Promise.all(hanging)).map((answer) => answer.split('\r\n')[0])).toEqual(
        Array.from({ length: LOOKUPS }, () => 'HTTP/1.1 502 Bad Gateway'),
      );
      expect(await firstAnswer(connectTo('a.answer.test'), mine, named)).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('connects to the very address it checked: a name rebound to this host after the check reaches nothing', async () => {
    const closedPort = sitePort === 65_535 ? sitePort - 1 : sitePort + 1;
    let reached = 0;
    const listener = createTcpServer((socket) => {
      reached += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(closedPort, '127.0.0.1', resolve));
    try {
      const answer = await ask(connectTo('flip.test', closedPort), '127.0.0.1', named);
      expect(answer).not.toMatch(/^HTTP\/1\.1 200/);
      // One question per type: the address the fence passed is the one it opened, never asked again.
      expect(dns.queries.filter((q) => q.name === 'flip.test' && q.type === 'A')).toHaveLength(1);
      expect(await ask(connectTo('flip.test', closedPort), '127.0.0.1', named)).toMatch(/^HTTP\/1\.1 403/);
      expect(reached).toBe(0);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});

describe('a site the proxy cannot pass on', () => {
  it('ends that one request, not the server the proxy runs in, whatever status line a site answers', async () => {
    // A site on the allowed port that answers raw bytes: status lines Node parses but will not
    // send on. Before, the first of them threw out of the proxy and stopped the whole process.
    const lines = ['HTTP/1.1 000 Zero', 'HTTP/1.1 099 Low', 'HTTP/1.1 200 O\x7fK'];
    let next = 0;
    const raw = createTcpServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () => {
        const line = lines[next % lines.length] ?? '';
        next += 1;
        socket.end(Buffer.from(`${line}\r\nContent-Length: 0\r\n\r\n`, 'latin1'));
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const rawPort = (raw.address() as AddressInfo).port;
    const own = await startBrowserProxy([{ from: rawPort, to: rawPort }]);
    const via = (text: string) =>
      new Promise<string>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port: own.port });
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString()));
        socket.on('error', () => resolve(answer));
        socket.on('close', () => resolve(answer));
        socket.setTimeout(2_000, () => {
          socket.destroy();
          resolve(answer);
        });
        socket.write(text);
      });
    try {
      const request = `GET http://127.0.0.1:${rawPort}/ HTTP/1.1\r\nHost: 127.0.0.1:${rawPort}\r\n`;
      // A navigation is shown why; a page's own request fails as a cut connection would.
      expect(await via(`${request}Sec-Fetch-Mode: navigate\r\n\r\n`)).toMatch(
        /^HTTP\/1\.1 502[\s\S]*<title>selenium-flow proxy: ERR_INVALID_HTTP_RESPONSE/,
      );
      expect(await via(`${request}Sec-Fetch-Mode: cors\r\n\r\n`)).toBe('');
      expect(await via(`${request}Sec-Fetch-Mode: navigate\r\n\r\n`)).toMatch(/^HTTP\/1\.1 502/);
      // The proxy still serves: the other proxy's site answers through it as before.
      expect(
        await ask(`GET http://127.0.0.1:${sitePort}/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
      ).toMatch(/site answered$/);
    } finally {
      await own.stop();
      await new Promise((resolve) => raw.close(resolve));
    }
  });
});
