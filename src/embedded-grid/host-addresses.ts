import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { PortRange } from './fence.js';

/**
 * Which destinations the browsers' proxy refuses: any address of this host (whatever its
 * spelling) and the cloud metadata service, unless the port is one BROWSER_LOOPBACK_PORTS opens.
 */

/** The cloud metadata service (AWS, GCP, Azure share 169.254.169.254; AWS's IPv6 one). */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2:0:0:0:0:0:254']);
/** How long the host's interface addresses are trusted before they are read again. */
const INTERFACES_TTL_MS = 2_000;

let interfaces: { read: number; addresses: Set<string> } | undefined;

/** The host's own interface addresses, read again at most every 2 s (an interface may come up). */
function interfaceAddresses(now = Date.now()): Set<string> {
  if (!interfaces || now - interfaces.read > INTERFACES_TTL_MS) {
    const addresses = new Set<string>();
    for (const list of Object.values(networkInterfaces())) {
      for (const entry of list ?? []) {
        addresses.add(canonical(entry.address));
      }
    }
    interfaces = { read: now, addresses };
  }
  return interfaces.addresses;
}

/** An IPv4 address in any IPv6 wrapping Linux would route to it (v4-mapped, v4-compatible, NAT64), as dotted quad. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower)?.[1];
  if (dotted) {
    return dotted;
  }
  const hex = /^(?:::ffff:|::|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = parseInt(hex[1] ?? '0', 16);
    const low = parseInt(hex[2] ?? '0', 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return undefined;
}

/** One spelling per address: IPv4 as dotted quad (also out of an IPv6 wrapping), IPv6 lower case without zone. */
export function canonical(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(bare) === 6) {
    return embeddedIpv4(bare) ?? expandIpv6(bare);
  }
  return bare;
}

/** An IPv6 address written out in full (eight groups, no leading zeros), so two spellings compare equal. */
function expandIpv6(address: string): string {
  const [head = '', tail] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => parseInt(g, 16).toString(16)).join(':');
}

/** Whether `address` (a resolved IP) is this host itself: loopback, unspecified, or one of its interfaces. */
export function isHostAddress(address: string): boolean {
  const ip = canonical(address);
  if (isIP(ip) === 4) {
    // 127/8 is loopback; 0/8 reaches this host on Linux (0.0.0.0 is "this host").
    if (ip.startsWith('127.') || ip.startsWith('0.')) {
      return true;
    }
  } else if (ip === '0:0:0:0:0:0:0:1' || ip === '0:0:0:0:0:0:0:0') {
    return true;
  }
  return interfaceAddresses().has(ip);
}

export function inRanges(port: number, ranges: readonly PortRange[]): boolean {
  return ranges.some((r) => port >= r.from && port <= r.to);
}

/** Why the browsers may not open `address`:`port`, or undefined when they may. */
export function refusal(address: string, port: number, allowed: readonly PortRange[]): string | undefined {
  const ip = canonical(address);
  if (METADATA.has(ip)) {
    return 'the cloud metadata service is closed to the browsers';
  }
  if (isHostAddress(ip) && !inRanges(port, allowed)) {
    return `port ${port} of this host is closed to the browsers`;
  }
  return undefined;
}

/** BROWSER_LOOPBACK_PORTS as a person writes it, or "none". */
export function describePorts(ranges: readonly PortRange[]): string {
  return ranges.length === 0
    ? 'none'
    : ranges.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}-${r.to}`)).join(',');
}
