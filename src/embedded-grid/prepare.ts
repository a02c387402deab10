import { randomBytes } from 'node:crypto';
import { gridAccount } from './account.js';
import { firefoxSupport } from './config.js';
import type { LivePorts } from './displays.js';
import { fenceBrowsers, writeChromiumPolicy, writeFirefoxPolicy, type PortRange } from './fence.js';
import type { FenceSetting } from './fence-report.js';
import { RecentLines, type Launch } from './launch.js';
import type { InstanceNotice } from './neighbours.js';
import { startBrowserProxy, type BrowserProxy, type BrowserProxyOptions } from './proxy.js';
import type { NameOptions } from './proxy-names.js';
import { assertSystemDependencies, findJar } from './requirements.js';
import type { BrowserSandbox } from './sandbox.js';

const GRID_USERNAME = 'selenium-flow';
const LOG_LINES_KEPT = 40;

/** The Grid's URL with its credentials, and the same without them for a person to read. */
export function gridUrls(
  port: number,
  credentials: { username: string; password: string },
): { url: string; address: string } {
  const address = `http://127.0.0.1:${port}`;
  return { address, url: `http://${credentials.username}:${credentials.password}@127.0.0.1:${port}` };
}

/**
 * Everything a Grid start needs before its first process: the jar, java, a fresh password
 * and, when this server runs as root, the unprivileged account and the firewall table.
 */
export interface LaunchOptions {
  loopbackPorts: readonly PortRange[];
  livePorts?: readonly LivePorts[];
  /** offer Firefox where this host runs it (default true) */
  firefox?: boolean;
  fence?: FenceSetting;
  /** each browser's sandbox, where one can run (sandbox.ts) */
  sandbox?: BrowserSandbox;
  /** how the browsers' proxy resolves names (proxy-names.ts) */
  names?: NameOptions;
  /** what this instance says of itself to the others on this host (neighbours.ts): the proxy's port */
  notice: InstanceNotice;
}

export async function prepareLaunch(
  port: number,
  {
    loopbackPorts,
    livePorts = [],
    firefox: withFirefox = true,
    fence = 'proxy',
    sandbox,
    names,
    notice,
  }: LaunchOptions,
): Promise<Launch & { proxy: BrowserProxy | undefined }> {
  const jarPath = findJar();
  const isRoot = process.getuid?.() === 0;
  const java = await assertSystemDependencies(jarPath, isRoot);
  let account = isRoot ? await gridAccount() : undefined;
  const firefox = withFirefox
    ? await firefoxSupport()
    : { geckodriver: undefined, firefoxMissing: 'This Grid was started without Firefox.' };
  // Without a sandbox to give each browser its policies, root still blocks file:// machine-wide.
  if (isRoot && sandbox === undefined) {
    await writeChromiumPolicy();
    if (firefox.geckodriver !== undefined) {
      await writeFirefoxPolicy();
    }
  }
  const proxy =
    fence === 'off' ? undefined : await startProxy(loopbackPorts, { ...(isRoot ? { owner: account } : {}), names });
  const vncPorts = livePorts.flatMap((p) => [p.rfb, p.websocket]);
  // The browsers' group may open their own proxy's port: every connection a page makes goes through it.
  const open = proxy ? [...loopbackPorts, { from: proxy.port, to: proxy.port }] : loopbackPorts;
  let firewallTable: string | undefined;
  try {
    await notice.add({ ports: proxy ? [proxy.port] : [] });
    if (account) {
      const fenced = await fenceBrowsers(port, account, open, vncPorts);
      firewallTable = fenced.table;
      account = { ...account, browsers: fenced.browsers };
    }
  } catch (error) {
    await proxy?.stop();
    throw error;
  }
  return {
    jarPath,
    java,
    account,
    firewallTable,
    proxy,
    proxyPort: proxy?.port,
    proxyClients: proxy?.clientsDir,
    // base64url: no character that needs escaping in a URL's userinfo.
    credentials: { username: GRID_USERNAME, password: randomBytes(24).toString('base64url') },
    log: new RecentLines(LOG_LINES_KEPT),
    ...firefox,
    sandbox,
    notice,
  };
}

/** The proxy, or the refusal that names the risk and the one setting that accepts it. */
async function startProxy(loopbackPorts: readonly PortRange[], options: BrowserProxyOptions): Promise<BrowserProxy> {
  try {
    return await startBrowserProxy(loopbackPorts, options);
  } catch (error) {
    throw new Error(
      `Cannot fence the embedded Grid's browsers: their proxy did not start (${error instanceof Error ? error.message : String(error)}). ` +
        'Without it a page can run programs as you (through chromedriver). Fix the cause, use an external Grid (GRID_URL), ' +
        'or set BROWSER_FENCE=off to run unfenced anyway.',
    );
  }
}
