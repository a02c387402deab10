import { randomBytes } from 'node:crypto';
import { gridAccount } from './account.js';
import { firefoxSupport } from './config.js';
import type { LivePorts } from './displays.js';
import { fenceBrowsers, writeChromiumPolicy, writeFirefoxPolicy, type PortRange } from './fence.js';
import type { FenceSetting } from './fence-report.js';
import { RecentLines, type Launch } from './launch.js';
import { PROXY_PORTS, startBrowserProxy, type BrowserProxy, type BrowserProxyOptions } from './proxy.js';
import { assertSystemDependencies, findJar } from './requirements.js';

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
export async function prepareLaunch(
  port: number,
  loopbackPorts: readonly PortRange[],
  livePorts: readonly LivePorts[] = [],
  withFirefox = true,
  fence: FenceSetting = 'proxy',
): Promise<Launch & { proxy: BrowserProxy | undefined }> {
  const jarPath = findJar();
  const isRoot = process.getuid?.() === 0;
  const java = await assertSystemDependencies(jarPath, isRoot);
  const account = isRoot ? await gridAccount() : undefined;
  const firefox = withFirefox
    ? await firefoxSupport()
    : { geckodriver: undefined, firefoxMissing: 'This Grid was started without Firefox.' };
  if (isRoot) {
    await writeChromiumPolicy();
    if (firefox.geckodriver !== undefined) {
      await writeFirefoxPolicy();
    }
  }
  const proxy =
    fence === 'off' ? undefined : await startProxy(loopbackPorts, isRoot ? { ports: PROXY_PORTS, owner: account } : {});
  const vncPorts = livePorts.flatMap((p) => [p.rfb, p.websocket]);
  // The browsers' group may open the proxies' ports: every connection a page makes goes through one.
  const open = proxy ? [...loopbackPorts, PROXY_PORTS] : loopbackPorts;
  let firewallTable: string | undefined;
  try {
    firewallTable = account ? await fenceBrowsers(port, account, open, vncPorts) : undefined;
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
