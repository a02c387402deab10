import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { GridAccount } from './account.js';
import { CHROMIUM_POLICY, FIREFOX_POLICY, NFT } from './paths.js';
import { firstLine, runWithInput } from './processes.js';

const run = promisify(execFile);

/** Ports `from` to `to`, both included. */
export interface PortRange {
  from: number;
  to: number;
}

/**
 * A page's own script can open any TCP port of the host its browser runs on: the Grid (whose
 * websocket proxies ask for no credentials), chromedriver (which trusts loopback origins), the
 * server, Redis. This nftables table rejects every TCP connection Chromium's group opens to an
 * address of this host (save DNS and `allowed`), and to the cloud metadata address.
 */
export async function fenceBrowsers(
  port: number,
  account: GridAccount,
  allowed: readonly PortRange[],
  vncPorts: readonly number[],
): Promise<string> {
  const table = `selenium_flow_${port}`;
  const browserGid = account.browserGid;
  const open = ['53', ...allowed.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}-${r.to}`))].join(', ');
  // x11vnc asks no password (the admin auth in front of the tunnel is the gate): only the Grid's
  // account (its node dials websockify, websockify dials x11vnc) and root may open those ports.
  const vnc =
    vncPorts.length === 0
      ? []
      : [
          `    meta skuid != { 0, ${account.uid} } fib daddr type local tcp dport { ${vncPorts.join(', ')} } tcp flags & (syn | ack) == syn reject with tcp reset`,
        ];
  const rules = [
    `table inet ${table} {`,
    '  chain output {',
    '    type filter hook output priority 0; policy accept;',
    // Only a connection's first packet (SYN without ACK): Chromium's own DevTools listener must still answer chromedriver.
    `    meta skgid ${browserGid} fib daddr type local tcp flags & (syn | ack) == syn tcp dport != { ${open} } reject with tcp reset`,
    `    meta skgid ${browserGid} ip daddr 169.254.169.254 tcp flags & (syn | ack) == syn reject with tcp reset`,
    `    meta skgid ${browserGid} ip6 daddr fd00:ec2::254 tcp flags & (syn | ack) == syn reject with tcp reset`,
    ...vnc,
    '  }',
    '}',
    '',
  ].join('\n');
  await removeFirewall(table);
  try {
    await runWithInput(NFT, ['-f', '-'], rules);
  } catch (error) {
    throw new Error(
      `Cannot fence the embedded Grid's browsers off this host's ports (nft: ${firstLine(error)}). ` +
        'Run as root with CAP_NET_ADMIN and the nftables package (npm run setup), or use an external Grid (GRID_URL).',
    );
  }
  return table;
}

export async function removeFirewall(table: string | undefined): Promise<void> {
  if (table !== undefined) {
    await run(NFT, ['delete', 'table', 'inet', table]).catch(() => undefined);
  }
}

/**
 * A Chromium policy no page can change: file:// URLs are blocked (a page or an agent could
 * otherwise read any file the browsers' user may read). Managed policies are machine-wide.
 */
export async function writeChromiumPolicy(): Promise<void> {
  const policy = `${JSON.stringify({ URLBlocklist: ['file://*'] }, null, 2)}\n`;
  const current = await readFile(CHROMIUM_POLICY, 'utf8').catch(() => undefined);
  if (current !== policy) {
    await mkdir(join(CHROMIUM_POLICY, '..'), { recursive: true, mode: 0o755 });
    await writeFile(CHROMIUM_POLICY, policy, { mode: 0o644 });
  }
}

/**
 * Firefox's counterpart of the Chromium policy: file:// URLs blocked. Firefox reads policies
 * from its installation's distribution directory, machine-wide like Chromium's.
 */
export async function writeFirefoxPolicy(): Promise<void> {
  const policy = `${JSON.stringify({ policies: { WebsiteFilter: { Block: ['file:///*'] } } }, null, 2)}\n`;
  const current = await readFile(FIREFOX_POLICY, 'utf8').catch(() => undefined);
  if (current !== policy) {
    await mkdir(join(FIREFOX_POLICY, '..'), { recursive: true, mode: 0o755 });
    await writeFile(FIREFOX_POLICY, policy, { mode: 0o644 });
  }
}
