import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BROWSER_ADDRESS_SH,
  browserAddress,
  startBrowserProxy,
  type BrowserProxy,
} from '../../src/embedded-grid/proxy.js';

// The real proxy on loopback, spoken to as a browser speaks to it (raw HTTP over TCP); the one
// allowed port is a real server's.
let site: Server;
let sitePort: number;
let proxy: BrowserProxy;
const PER_BROWSER = 3;

/** Sends `text` to the proxy at `host` and resolves with all it answered until it closed (or what came within 1 s). */
function ask(text: string, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port: proxy.port });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.setTimeout(1_000, () => {
      socket.destroy();
      resolve(answer);
    });
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

async function registered(pid: number): Promise<void> {
  await writeFile(join(proxy.clientsDir, String(pid)), '');
  for (let i = 0; i < 100 && !existsSync(join(proxy.clientsDir, `${pid}.ready`)); i += 1) {
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
    expect(existsSync(join(proxy.clientsDir, `${pid}.ready`))).toBe(true);
    await new Promise((resolve) => brief.once('exit', resolve));
    for (let i = 0; i < 60 && existsSync(join(proxy.clientsDir, `${pid}.ready`)); i += 1) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(existsSync(join(proxy.clientsDir, `${pid}.ready`))).toBe(false);
    expect(await ask('CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n', browserAddress(pid))).toBe('');
  });
});
