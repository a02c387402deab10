/**
 * What the fence's proxy answers when it cannot or may not open a page: a page
 * whose title names the reason in Chromium's own words (a browser shows an HTTP proxy's answer as
 * the page, so the network error it would have named never comes). navigate reads it back to
 * answer the same 502 a direct connection's failure gets. A page could forge the title: the
 * worst it gains is an error about itself.
 */
const PREFIX = 'selenium-flow proxy: ';

/** The reason a port of the browsers' own host is closed to them (not one of Chromium's). */
export const PORT_CLOSED = 'ERR_PORT_CLOSED';
/** The reason an address off the browsers' host is closed to them: a private network's, the Grid's own, the metadata service. */
export const ADDRESS_CLOSED = 'ERR_ADDRESS_CLOSED';

export function proxyPageTitle(reason: string, openPorts: string): string {
  return `${PREFIX}${reason} (BROWSER_LOOPBACK_PORTS=${openPorts})`;
}

/** The reason and the open ports a proxy page's title names, or undefined for any other title. */
export function readProxyPageTitle(title: string): { reason: string; openPorts: string } | undefined {
  const match = /^selenium-flow proxy: (ERR_[A-Z0-9_]+) \(BROWSER_LOOPBACK_PORTS=([0-9,-]+|none)\)$/.exec(title);
  return match ? { reason: match[1] ?? '', openPorts: match[2] ?? '' } : undefined;
}
