import { createSocket } from 'node:dgram';
import type { BrowserKind } from '../../src/grid/capabilities.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { rest } from './server.js';

/** What the attack page (test/fixtures/site/attack.html) found at one target. */
export interface Outcome {
  name: string;
  reached: boolean;
  how: string;
}

/** Python code with no space, quote or `=` (chromedriver drops arguments with those): writes `file`. */
function payload(file: string): string {
  const code = Buffer.from(`open(${JSON.stringify(file)},"w").write("ran")`);
  return `-cexec(bytes((${[...code].join(',')})).decode())`;
}

/** A WebDriver new-session body whose "browser" is python3 writing `file`: what a driver runs for a loopback page. */
export function newSession(browser: BrowserKind, file: string): string {
  const options =
    browser === 'chrome'
      ? { 'goog:chromeOptions': { binary: '/usr/bin/python3', args: [payload(file)] } }
      : { 'moz:firefoxOptions': { binary: '/usr/bin/python3', args: [payload(file)] } };
  return JSON.stringify({ capabilities: { alwaysMatch: { browserName: browser, ...options } } });
}

/** The attack page's probes, and WebRTC (STUN and TURN over UDP) at `udpPort`, run in the workspace's page of `base`. */
export async function attackFromPage(
  base: string,
  siteUrl: string,
  workspace: string,
  targets: object[],
  udpPort: number,
): Promise<Outcome[]> {
  const ws = { 'X-Workspace': workspace };
  expect((await rest(base, '/browser/navigate', { url: `${siteUrl}/attack.html` }, ws)).status).toBe(200);
  const script = `
    const udp = async (port) => {
      const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:' + port },
        { urls: 'turn:127.0.0.1:' + port + '?transport=udp', username: 'u', credential: 'c' }] });
      pc.createDataChannel('x');
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise((r) => setTimeout(r, 2500));
      pc.close();
    };
    await Promise.all([window.attack(${JSON.stringify(targets)}), udp(${udpPort})]);
    return document.getElementById('results').textContent;`;
  const answer = await rest(base, '/browser/execute-script', { script: `return (async () => {${script}})()` }, ws);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return JSON.parse(String(answer.body.result)) as Outcome[];
}

/** An HTTP listener on every address of this host (dual stack), counting the connections it sees. */
export async function countingListener(): Promise<{
  port: number;
  connections: () => number;
  close: () => Promise<void>;
}> {
  let count = 0;
  const server = createServer((_request, response) => response.end('control'));
  server.on('connection', () => (count += 1));
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A UDP socket on loopback, counting the packets it gets. */
export async function udpListener(): Promise<{ port: number; packets: () => number; close: () => void }> {
  let count = 0;
  const socket = createSocket('udp4');
  socket.on('message', () => (count += 1));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { port: socket.address().port, packets: () => count, close: () => socket.close() };
}
