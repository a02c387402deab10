import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { browserGroup, BROWSER_GROUPS, type BrowserGroup, type GridAccount } from './account.js';
import { CHROMIUM_POLICY, FIREFOX_POLICY, NFT } from './paths.js';
import { firstLine, runWithInput } from './processes.js';

const run = promisify(execFile);

/** Ports `from` to `to`, both included. */
export interface PortRange {
  from: number;
  to: number;
}

/** How often a Grid tries to claim a browser group another starting Grid may claim at the same time. */
const CLAIM_ATTEMPTS = 10;

/**
 * A page's own script can open any TCP port of the host its browser runs on: the Grid (whose
 * websocket proxies ask for no credentials), chromedriver (which trusts loopback origins), the
 * server, Redis. This nftables table rejects every TCP connection this Grid's browsers open to an
 * address of this host (save DNS, `allowed` and their own proxy's port), and to the cloud
 * metadata address.
 *
 * The table keys on a browser group of this Grid's own, claimed here: a table keyed on a group
 * every Grid shared applied to every Grid's browsers, so each had to open every Grid's proxy
 * port (a range, which a chromedriver's random port could land in) to all of them. A group is
 * taken when a live table keys on it; two Grids claiming at once both see it, and try again.
 */
export async function fenceBrowsers(
  port: number,
  account: GridAccount,
  allowed: readonly PortRange[],
  vncPorts: readonly number[],
): Promise<{ table: string; browsers: BrowserGroup }> {
  const table = `selenium_flow_${port}`;
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
    const taken = await browserGidsInUse(table);
    const group = await freeGroup(taken);
    await removeFirewall(table);
    try {
      await runWithInput(NFT, ['-f', '-'], rules(table, group.gid, account.uid, allowed, vncPorts));
    } catch (error) {
      throw new Error(
        `Cannot fence the embedded Grid's browsers off this host's ports (nft: ${firstLine(error)}). ` +
          'Run as root with CAP_NET_ADMIN and the nftables package (npm run setup), or use an external Grid (GRID_URL).',
      );
    }
    if (!(await browserGidsInUse(table)).has(group.gid)) {
      return { table, browsers: group };
    }
    await removeFirewall(table);
    await delay(20 + Math.random() * 200);
  }
  throw new Error(
    `Cannot claim a browser group of this Grid's own: other Grids starting at the same time took each one ${CLAIM_ATTEMPTS} times; start this one again.`,
  );
}

/** The lowest browser group no live table keys on. */
async function freeGroup(taken: Set<number>): Promise<BrowserGroup> {
  for (let index = 1; index <= BROWSER_GROUPS; index += 1) {
    const group = await browserGroup(index);
    if (!taken.has(group.gid)) {
      return group;
    }
  }
  throw new Error(
    `Every one of the ${BROWSER_GROUPS} browser groups is held by a Grid's firewall table (nft list tables shows them): stop a Grid, or delete a table left by a crash with nft delete table inet <name>.`,
  );
}

function rules(
  table: string,
  browserGid: number,
  gridUid: number,
  allowed: readonly PortRange[],
  vncPorts: readonly number[],
): string {
  const open = ['53', ...allowed.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}-${r.to}`))].join(', ');
  // x11vnc asks no password (the admin auth in front of the tunnel is the gate): only the Grid's
  // account (its node dials websockify, websockify dials x11vnc) and root may open those ports.
  const vnc =
    vncPorts.length === 0
      ? []
      : [
          `    meta skuid != { 0, ${gridUid} } fib daddr type local tcp dport { ${vncPorts.join(', ')} } tcp flags & (syn | ack) == syn reject with tcp reset`,
        ];
  return [
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
}

const Ruleset = z.object({ nftables: z.array(z.unknown()) });
const Rule = z.object({ rule: z.object({ table: z.string(), expr: z.array(z.unknown()) }) });
const GroupMatch = z.object({
  match: z.object({ left: z.object({ meta: z.object({ key: z.literal('skgid') }) }), right: z.number() }),
});

/** The browser groups the other Grids' tables (selenium_flow_<port>, but `own`) key on now. */
async function browserGidsInUse(own: string): Promise<Set<number>> {
  const { stdout } = await run(NFT, ['-j', 'list', 'ruleset', 'inet'], { maxBuffer: 64 * 1024 * 1024 });
  const parsed = Ruleset.safeParse(JSON.parse(stdout));
  const gids = new Set<number>();
  for (const item of parsed.success ? parsed.data.nftables : []) {
    const rule = Rule.safeParse(item);
    if (rule.success && /^selenium_flow_\d+$/.test(rule.data.rule.table) && rule.data.rule.table !== own) {
      for (const expression of rule.data.rule.expr) {
        const match = GroupMatch.safeParse(expression);
        if (match.success) {
          gids.add(match.data.match.right);
        }
      }
    }
  }
  return gids;
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
