import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** Loopback and this host under the spellings a URL can carry (each browser reads them into one of its own). */
export const URL_SPELLINGS = [
  '[::ffff:127.0.0.1]',
  '[0::ffff:7f00:1]',
  '[::127.0.0.1]',
  '[::7f00:1]',
  '[64:ff9b::7f00:1]',
  '2130706433',
  '0x7f000001',
  '0177.0.0.1',
  '127.1',
  '0x7f.1',
  '127.0.0.1.',
  'localhost.',
  'LOCALHOST',
  'foo.localhost.',
  '0.0.0.0',
  '[::]',
  '[::1]',
];

/** …and those only a raw request can carry: no browser sends them as they are. */
export const RAW_SPELLINGS = [
  ...URL_SPELLINGS,
  '127.0.0.1',
  '[0:0:0:0:0:FFFF:7F00:0001]',
  '[::ffff:0:7f00:1]',
  '[fe80::1%lo]',
  '[::1%25lo]',
  '127.0.0.1..',
  'a..localhost',
  '09.0.0.1',
];

/** The cloud metadata service, spelled every way. */
export const METADATA_SPELLINGS = [
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
];

/** To every spelling, at each port: a CONNECT, and a GET as a navigation (a refused one shows the proxy's page). */
export function rawRequests(spellings: readonly string[], ports: readonly number[]): string[] {
  return spellings.flatMap((host) =>
    ports.flatMap((port) => [
      `CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`,
      `GET http://${host}:${port}/ HTTP/1.1\r\nHost: ${host}:${port}\r\nSec-Fetch-Mode: navigate\r\n\r\n`,
    ]),
  );
}

/**
 * Sends each raw request to the browsers' proxy at `proxy` (host:port) from a process with a
 * browser's identity (`user`, and `group`, which the firewall keys on as root), and answers what
 * came back to each, in order.
 */
export async function fromBrowserIdentity(
  identity: { user: string; group: string },
  proxy: string,
  requests: string[],
): Promise<string[]> {
  const script = `
    const net = require('node:net');
    const [address, list] = [process.argv[1], JSON.parse(process.argv[2])];
    const [host, port] = address.split(':');
    (async () => {
      const out = [];
      for (const request of list) {
        out.push(await new Promise((resolve) => {
          const socket = net.connect({ host, port: Number(port) });
          let got = '';
          const done = () => { socket.destroy(); resolve(got.slice(0, 400)); };
          socket.on('data', (chunk) => { got += chunk.toString('latin1'); });
          socket.on('error', done);
          socket.on('close', done);
          socket.setTimeout(3000, done);
          socket.write(request);
        }));
      }
      process.stdout.write(JSON.stringify(out));
    })();`;
  const { stdout } = await promisify(execFile)(
    'setpriv',
    [
      '--reuid',
      identity.user,
      '--regid',
      identity.group,
      '--clear-groups',
      '--',
      process.execPath,
      '-e',
      script,
      proxy,
      JSON.stringify(requests),
    ],
    { maxBuffer: 8 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as string[];
}
