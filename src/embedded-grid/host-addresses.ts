import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { PortRange } from './fence.js';

/**
 * Which destinations the browsers' proxy refuses: any address of this host (whatever its
 * spelling) and the cloud metadata service, unless the port is one BROWSER_LOOPBACK_PORTS opens.
 * Every destination is first read one way only (`destination`): the fence judges, and the proxy
 * connects to, that one reading.
 */

/** The cloud metadata service (AWS, GCP, Azure share 169.254.169.254; AWS's IPv6 one). */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);
/** How long the host's interface addresses are trusted before they are read again. */
const INTERFACES_TTL_MS = 2_000;

/** What a request names, read one way: the addresses to judge and open, a name to resolve, or why it cannot be read so. */
export type Destination = { addresses: string[] } | { name: string } | { unreadable: string };

/** A host as an authority carries it: a bracketed IPv6 address, or letters, digits, dots, hyphens and underscores. */
const HOST_FORM = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)$/;
const LOCALHOST_NAME = /^(?:[^.]+\.)*localhost$/;
const MAX_NAME = 253;
const MAX_LABEL = 63;

/**
 * Reads the host of a request line, an absolute URI or a CONNECT authority the way the browsers
 * read a URL's host: through the WHATWG URL parser (Node's, the same standard both browsers
 * follow), which turns every IPv4 spelling (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`,
 * `127.0.0.1.`) into a dotted quad, lower-cases names and compresses IPv6. What it refuses, or
 * what is a name no resolver reads one way (an empty label, a zone id, a stray character), is
 * unreadable: refused, never guessed at.
 */
export function destination(host: string): Destination {
  const unreadable = {
    unreadable:
      'that host can be read more than one way (write an IPv4 address as four decimal numbers, an IPv6 one without a zone id, a name with no empty label)',
  };
  if (!HOST_FORM.test(host)) {
    return unreadable;
  }
  let hostname: string;
  try {
    hostname = new URL(`http://${host}/`).hostname;
  } catch {
    return unreadable;
  }
  if (hostname.startsWith('[') || isIP(hostname) === 4) {
    return { addresses: [canonical(hostname)] };
  }
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  const labels = name.split('.');
  if (name.length > MAX_NAME || labels.some((label) => label === '' || label.length > MAX_LABEL)) {
    return unreadable;
  }
  // Both browsers resolve every *.localhost name to loopback themselves (RFC 6761) and a
  // resolver may not: answer as they would, and the fence then judges loopback.
  return LOCALHOST_NAME.test(name) ? { addresses: ['127.0.0.1', '::1'] } : { name };
}

/** An IPv4 address's 4 bytes, or an IPv6 address's 16 (a zone id dropped), from any valid spelling. */
function bytesOf(address: string): number[] | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) {
    return bare.split('.').map(Number);
  }
  if (family !== 6) {
    return undefined;
  }
  // A dotted tail (::ffff:1.2.3.4) becomes its two groups.
  const text = bare.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_all, a: string, b: string, c: string, d: string) =>
    [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)].map((g) => g.toString(16)).join(':'),
  );
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.flatMap((g) => {
    const value = parseInt(g, 16);
    return [value >> 8, value & 255];
  });
}

/** IPv6 groups as RFC 5952 writes them: lower case, no leading zeros, the first longest run of 2+ zero groups as `::`. */
function ipv6Text(bytes: readonly number[]): string {
  const groups = Array.from({ length: 8 }, (_, i) =>
    (((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0)).toString(16),
  );
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8;) {
    let end = i;
    while (end < 8 && groups[end] === '0') {
      end += 1;
    }
    if (end - i > best.length) {
      best = { at: i, length: end - i };
    }
    i = end === i ? i + 1 : end;
  }
  if (best.at < 0) {
    return groups.join(':');
  }
  return `${groups.slice(0, best.at).join(':')}::${groups.slice(best.at + best.length).join(':')}`;
}

const zeros = (bytes: readonly number[], from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);

/**
 * The IPv4 address an IPv6 one wraps, as Linux or a translator on this host would route it:
 * v4-mapped (::ffff:0:0/96), v4-compatible (::/96), SIIT's v4-translated (::ffff:0:0:0/96) and
 * NAT64's well-known and local-use prefixes (64:ff9b::/96, 64:ff9b:1::/96).
 */
function wrappedIpv4(bytes: readonly number[]): string | undefined {
  const lastFour = bytes.slice(12).join('.');
  const mapped = zeros(bytes, 0, 10) && bytes[10] === 255 && bytes[11] === 255;
  const compatible = zeros(bytes, 0, 12);
  const translated = zeros(bytes, 0, 8) && bytes[8] === 255 && bytes[9] === 255 && zeros(bytes, 10, 12);
  const nat64 = bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(bytes, 6, 12);
  const wellKnownOrLocal = nat64 && (zeros(bytes, 4, 6) || (bytes[4] === 0 && bytes[5] === 1));
  return mapped || compatible || translated || wellKnownOrLocal ? lastFour : undefined;
}

/**
 * One spelling per address, which the fence judges and the proxy connects to: IPv4 as a dotted
 * quad (also out of ::ffff:0:0/96, which Linux opens as that IPv4 address), IPv6 as RFC 5952
 * writes it. Anything that is no IP address comes back as given.
 */
export function canonical(address: string): string {
  const bytes = bytesOf(address);
  if (!bytes) {
    return address;
  }
  if (bytes.length === 4) {
    return bytes.join('.');
  }
  const mapped = zeros(bytes, 0, 10) && bytes[10] === 255 && bytes[11] === 255;
  return mapped ? bytes.slice(12).join('.') : ipv6Text(bytes);
}

/** The spellings the fence judges an address by: itself, and the IPv4 address it wraps. */
export function judgedAs(address: string): string[] {
  const bytes = bytesOf(address);
  if (!bytes) {
    return [address];
  }
  const ip = canonical(address);
  const wrapped = bytes.length === 16 ? wrappedIpv4(bytes) : undefined;
  return wrapped === undefined || wrapped === ip ? [ip] : [ip, wrapped];
}

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

/** Whether `address` (an IP, any spelling) is this host itself: loopback, unspecified, one of its interfaces, or a wrapping of one. */
export function isHostAddress(address: string): boolean {
  return judgedAs(address).some((ip) => {
    if (isIP(ip) === 4) {
      // 127/8 is loopback; 0/8 reaches this host on Linux (0.0.0.0 is "this host").
      if (ip.startsWith('127.') || ip.startsWith('0.')) {
        return true;
      }
    } else if (ip === '::1' || ip === '::') {
      return true;
    }
    return interfaceAddresses().has(ip);
  });
}

/** Whether `ip` (canonical, as `judgedAs` answers) lies in `cidr` (`10.0.0.0/8`, `fd00::/8`, or one address). */
export function inCidr(ip: string, cidr: string): boolean {
  const [base = '', bits] = cidr.split('/');
  const range = bytesOf(base);
  const bytes = bytesOf(ip);
  if (!range || !bytes || range.length !== bytes.length) {
    return false;
  }
  const width = bits === undefined ? range.length * 8 : Number(bits);
  for (let bit = 0; bit < width; bit += 1) {
    const mask = 0x80 >> (bit % 8);
    if (((bytes[bit >> 3] ?? 0) & mask) !== ((range[bit >> 3] ?? 0) & mask)) {
      return false;
    }
  }
  return true;
}

export function inRanges(port: number, ranges: readonly PortRange[]): boolean {
  return ranges.some((r) => port >= r.from && port <= r.to);
}

/** Why the browsers may not open `address`:`port`, or undefined when they may. */
export function refusal(address: string, port: number, allowed: readonly PortRange[]): string | undefined {
  if (judgedAs(address).some((ip) => METADATA.has(ip))) {
    return 'the cloud metadata service is closed to the browsers';
  }
  if (isHostAddress(address) && !inRanges(port, allowed)) {
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
