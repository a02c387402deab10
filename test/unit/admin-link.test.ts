import { describe, expect, it } from 'vitest';
import { AdminLink } from '../../src/admin/link.js';
import { accessLines } from '../../src/banner.js';
import { loadConfig } from '../../src/config.js';
import { adminLinkFor } from '../../src/server.js';

describe('AdminLink', () => {
  it('exchanges its code once for a session that only it accepts', () => {
    const { link, code } = AdminLink.issue(60_000);
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(link.accepts(code)).toBe(false);
    expect(link.exchange(`${code}x`)).toBeUndefined();
    const token = link.exchange(code);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(link.accepts(token)).toBe(true);
    expect(link.accepts(undefined)).toBe(false);
    expect(link.accepts(`${token}x`)).toBe(false);
    // Used: the same code again gives nothing, and the first session stays the only one.
    expect(link.exchange(code)).toBeUndefined();
    expect(link.accepts(token)).toBe(true);
  });

  it('gives nothing after its time, and is spent by the late try', () => {
    let now = 1_000;
    const { link, code } = AdminLink.issue(600_000, () => now);
    now += 600_001;
    expect(link.exchange(code)).toBeUndefined();
    now = 1_000;
    expect(link.exchange(code)).toBeUndefined();
  });

  it('is issued only to a server with no token whose store is its own memory', () => {
    const config = (env: Record<string, string>) => loadConfig({}, env);
    expect(adminLinkFor(config({}))).toBeDefined();
    expect(adminLinkFor(config({ ADMIN_TOKEN: 'admin-token-0123456789' }))).toBeUndefined();
    expect(adminLinkFor(config({ MCP_AUTH_TOKEN: 'bearer-token-0123456789' }))).toBeUndefined();
    expect(adminLinkFor(config({ TOKENS_FILE: '/nonexistent/tokens.yaml' }))).toBeUndefined();
    expect(adminLinkFor(config({ REDIS_URL: 'redis://127.0.0.1:1' }))).toBeUndefined();
  });

  it('takes its lifetime from ADMIN_LINK_TTL (10 minutes unless set)', () => {
    expect(loadConfig({}, {}).adminLinkTtl).toBe(600);
    expect(loadConfig({}, { ADMIN_LINK_TTL: '1' }).adminLinkTtl).toBe(1);
  });
});

describe("the banner's admin line", () => {
  it('says how long the link works as it was set, never rounded to minutes', () => {
    const said = (ttl: string) =>
      accessLines(loadConfig({}, { ADMIN_LINK_TTL: ttl }, { command: 'serve' }), 'http://127.0.0.1:8080', 'CODE')[1];
    expect(said('600')).toBe(
      '  Admin:    http://127.0.0.1:8080/admin/#code=CODE (open it in your browser: works once, for 10 min)',
    );
    expect(said('3')).toContain('works once, for 3 s)');
    expect(said('90')).toContain('works once, for 90 s)');
  });
});

describe("the banner's Control line", () => {
  const said = (env: Record<string, string>, code?: string) =>
    accessLines(loadConfig({}, env, { command: 'serve' }), 'http://127.0.0.1:8080', code)[2];

  it('names who may take Control, and never an admin credential the agents hold', () => {
    expect(said({}, 'CODE')).toBe('  Control:  a person on the admin page');
    expect(said({ MCP_AUTH_TOKEN: 'agents-token-0123456789' })).toBe(
      "  Control:  nobody on the admin page: its credential is the agents' token; set ADMIN_TOKEN to one of its own",
    );
    expect(said({ MCP_AUTH_TOKEN: 'agents-token-0123456789', ADMIN_TOKEN: 'agents-token-0123456789' })).toContain(
      'nobody on the admin page',
    );
    expect(
      said({ MCP_AUTH_TOKEN: 'agents-token-0123456789', ADMIN_TOKEN: 'a-person-s-own-token-42', CONTROL_BY: 'apps' }),
    ).toBe('  Control:  a person on the admin page, and the live app of hosts whose token says control: true');
    expect(said({ CONTROL_BY: 'off' }, 'CODE')).toBe(
      '  Control:  off (CONTROL_BY=off: browsers are watched, never taken)',
    );
  });
});
