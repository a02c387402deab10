import { loopbackHosts, type Config } from '../config.js';
import { Forbidden } from '../errors.js';
import { globMatches } from '../glob.js';

type GuardConfig = Pick<Config, 'host' | 'publicUrl' | 'allowedHosts' | 'allowedOrigins'>;

/** What the check reads of a request: a route's, or a websocket upgrade's before any route runs. */
export interface Addressed {
  headers: { host?: string; origin?: string };
  socket: { localPort?: number };
}

/**
 * Who may address this server by which name, against DNS rebinding and cross-site requests: a
 * page that rebinds its own name to 127.0.0.1 sends its own name as Host, and a page on any other
 * origin sends that origin. Requests without an Origin (curl, SDK clients, probes) are not from
 * a page and pass the Origin check; the Host check still applies to them.
 */
export class RequestGuard {
  private readonly hosts: string[];
  private readonly origins: Set<string>;

  constructor(config: GuardConfig) {
    const publicUrl = config.publicUrl ? new URL(config.publicUrl) : undefined;
    this.hosts = [
      ...loopbackHosts,
      bare(config.host.toLowerCase()),
      ...(publicUrl ? [bare(publicUrl.hostname)] : []),
      ...config.allowedHosts.map(bare),
    ];
    this.origins = new Set([
      ...(publicUrl ? [publicUrl.origin] : []),
      ...config.allowedOrigins.map((o) => o.toLowerCase()),
    ]);
  }

  /** Throws a 403 naming the setting that would let this request in. `anyHost`: probes, addressed by IP. */
  check(request: Addressed, anyHost: boolean): void {
    const host = hostnameOf(request.headers.host);
    if (!anyHost && (host === undefined || !this.hosts.some((allowed) => globMatches(allowed, host)))) {
      throw new Forbidden(
        `This server does not answer to the Host ${quoted(request.headers.host)} (a guard against DNS rebinding); add that name to ALLOWED_HOSTS (--allowed-hosts), or call it by a loopback address or PUBLIC_URL's host.`,
      );
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !this.allowsOrigin(origin.toLowerCase(), request.socket.localPort)) {
      throw new Forbidden(
        `A web page from ${quoted(origin)} may not call this server; add that origin to ALLOWED_ORIGINS (--allowed-origins) if its pages should.`,
      );
    }
  }

  private allowsOrigin(origin: string, localPort: number | undefined): boolean {
    if (this.origins.has(origin)) {
      return true;
    }
    // The server's own pages: a loopback or listen-address origin on the very port it serves.
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // "null" (sandboxed frames, file:) and anything unparsable
    }
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    return (
      url.protocol === 'http:' &&
      port === localPort &&
      this.hosts.slice(0, loopbackHosts.size + 1).includes(bare(url.hostname))
    );
  }
}

/** `[::1]:8080` → `::1`; undefined when there is no usable Host. */
function hostnameOf(header: string | undefined): string | undefined {
  if (!header) {
    return undefined;
  }
  try {
    return bare(new URL(`http://${header}`).hostname);
  } catch {
    return undefined;
  }
}

function bare(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

/** Outside text in a message: quoted, and short. */
function quoted(text: string | undefined): string {
  return JSON.stringify((text ?? '').slice(0, 100));
}
