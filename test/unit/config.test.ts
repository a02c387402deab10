import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('takes defaults, env vars, and flags over env vars', () => {
    expect(loadConfig({}, {})).toMatchObject({ host: '127.0.0.1', port: 8080, sessionTtl: 3600, gridUrl: undefined });
    expect(loadConfig({}, { PORT: '9000' }).port).toBe(9000);
    expect(loadConfig({ port: '9100' }, { PORT: '9000' }).port).toBe(9100);
  });

  it('stops the boot on a bad value with a message naming the setting', () => {
    expect(() => loadConfig({}, { PORT: 'eighty' })).toThrow(/^PORT \(--port\)/);
    expect(() => loadConfig({}, { GRID_URL: 'ftp://grid' })).toThrow(
      /GRID_URL \(--grid-url\) must be an http\(s\) URL/,
    );
    expect(() => loadConfig({}, { SESSION_STORE: 'postgres' })).toThrow(/^SESSION_STORE/);
    expect(() => loadConfig({}, { LOG_LEVEL: 'loud' })).toThrow(/^LOG_LEVEL/);
  });

  it('refuses a non-loopback HOST without a token, and accepts it with one', () => {
    expect(() => loadConfig({}, { HOST: '0.0.0.0' })).toThrow(/MCP_AUTH_TOKEN .* is required when HOST is 0.0.0.0/);
    expect(loadConfig({}, { HOST: '0.0.0.0', MCP_AUTH_TOKEN: 'a'.repeat(24) }).host).toBe('0.0.0.0');
  });
});
