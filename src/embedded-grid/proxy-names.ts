import { Resolver } from 'node:dns/promises';
import { readFile, stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import { canonical } from './host-addresses.js';

/**
 * How the browsers' proxy turns a name into addresses: the hosts file, then DNS through c-ares
 * (`dns.Resolver`), never `dns.lookup`. getaddrinfo runs on libuv's pool of 4 threads, shared
 * with the whole server's file access: a page asking for names whose DNS never answers held all
 * four, and every other browser's navigations by name waited minutes behind them. c-ares waits
 * on sockets, not threads, so a lookup that hangs holds nothing but its own answer; each browser
 * may wait on LOOKUPS_PER_BROWSER at once, and each lookup ends within LOOKUP_DEADLINE_MS.
 */
export interface NameOptions {
  /** DNS servers to ask (`127.0.0.1:5353`, `[::1]:53`); default: /etc/resolv.conf's, read at each lookup */
  servers?: readonly string[];
  /** the hosts file read before DNS; default /etc/hosts */
  hostsFile?: string;
  /** lookups one browser may wait on at once (LOOKUPS_PER_BROWSER) */
  perBrowser?: number;
}

export type Resolution = { addresses: string[] } | { failed: 'busy' | 'not-found' | 'unanswered' };

/**
 * Lookups one browser may wait on at once. Chromium holds at most 32 connections to a proxy at
 * once and each waits on one lookup at most, so a page loading as browsers do never meets it;
 * a page asking for names that never answer holds 32 and is refused the rest.
 */
export const LOOKUPS_PER_BROWSER = 32;
/** c-ares's first wait for an answer, and its tries per server (it doubles the wait each round): ~3 s on one server. */
const TRY_TIMEOUT_MS = 1_000;
const TRIES = 2;
/** The most one lookup may take, whatever resolv.conf lists (up to 3 servers, each tried twice). */
export const LOOKUP_DEADLINE_MS = 5_000;
/** How long the hosts file is trusted before it is checked for a change. */
const HOSTS_TTL_MS = 2_000;
/** c-ares's answers that mean the name has no address, as opposed to no answer. */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME']);

export class NameResolver {
  private readonly waiting = new Map<string, number>();
  private hosts: { checked: number; version: string; names: Map<string, string[]> } | undefined;
  readonly perBrowser: number;

  constructor(private readonly options: NameOptions = {}) {
    this.perBrowser = options.perBrowser ?? LOOKUPS_PER_BROWSER;
    // A wrong server address fails here, at the proxy's start, not at a page's first lookup.
    this.resolver();
  }

  /** Lookups `browser` (its own proxy address) waits on now. */
  inFlight(browser: string): number {
    return this.waiting.get(browser) ?? 0;
  }

  /** `name`'s addresses, IPv4 first; each one is what the fence then judges and the proxy opens. */
  async resolve(name: string, browser: string): Promise<Resolution> {
    const known = (await this.hostsTable()).get(name);
    if (known) {
      return { addresses: known };
    }
    const waiting = this.inFlight(browser);
    if (waiting >= this.perBrowser) {
      return { failed: 'busy' };
    }
    this.waiting.set(browser, waiting + 1);
    try {
      return await this.ask(name);
    } finally {
      const left = this.inFlight(browser) - 1;
      if (left > 0) {
        this.waiting.set(browser, left);
      } else {
        this.waiting.delete(browser);
      }
    }
  }

  /**
   * A resolver of its own per lookup: it reads /etc/resolv.conf as it is now (a laptop changes
   * networks under a running server), and cancelling it at the deadline ends only this lookup.
   */
  private resolver(): Resolver {
    const resolver = new Resolver({ timeout: TRY_TIMEOUT_MS, tries: TRIES });
    if (this.options.servers) {
      resolver.setServers([...this.options.servers]);
    }
    return resolver;
  }

  private async ask(name: string): Promise<Resolution> {
    const resolver = this.resolver();
    const deadline = setTimeout(() => resolver.cancel(), LOOKUP_DEADLINE_MS);
    try {
      // IPv4 first: the address tried first when both answer, as most hosts reach it surely.
      const answers = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
      const addresses = [
        ...new Set(answers.flatMap((a) => (a.status === 'fulfilled' ? a.value.map((ip) => canonical(ip)) : []))),
      ];
      if (addresses.length > 0) {
        return { addresses };
      }
      const codes = answers.map((a) => (a.status === 'rejected' ? errorCode(a.reason) : 'ENODATA'));
      return { failed: codes.every((code) => NO_SUCH_NAME.has(code)) ? 'not-found' : 'unanswered' };
    } finally {
      clearTimeout(deadline);
    }
  }

  /** The hosts file's names (lower case, no trailing dot) and their addresses, read again when it changed. */
  private async hostsTable(now = Date.now()): Promise<Map<string, string[]>> {
    if (this.hosts && now - this.hosts.checked <= HOSTS_TTL_MS) {
      return this.hosts.names;
    }
    const path = this.options.hostsFile ?? '/etc/hosts';
    const seen = await stat(path).catch(() => undefined);
    const version = seen ? `${seen.ino}:${seen.size}:${seen.mtimeMs}` : '';
    if (this.hosts?.version !== version) {
      const text = seen ? await readFile(path, 'utf8').catch(() => '') : '';
      this.hosts = { checked: now, version, names: parseHosts(text) };
    }
    this.hosts.checked = now;
    return this.hosts.names;
  }
}

/** A hosts file as getaddrinfo reads it: `address name alias…` per line, `#` to the line's end a comment; every line of a name counts. */
export function parseHosts(text: string): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const [address, ...aliases] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (address === undefined || isIP(address.replace(/%.*$/, '')) === 0) {
      continue;
    }
    const ip = canonical(address);
    for (const alias of aliases) {
      const name = alias.toLowerCase().replace(/\.$/, '');
      const known = names.get(name) ?? [];
      if (!known.includes(ip)) {
        names.set(name, [...known, ip]);
      }
    }
  }
  return names;
}

function errorCode(error: unknown): string {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : '';
}
