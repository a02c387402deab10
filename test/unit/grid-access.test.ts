import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { browserCapabilities } from '../../src/grid/capabilities.js';
import { splitCredentials, withoutCredentials } from '../../src/grid/grid.js';
import { browserSandbox } from '../../src/parts.js';

const WINDOW = { width: 1280, height: 900 };
const chromeArgs = (caps: Record<string, unknown>) => (caps['goog:chromeOptions'] as { args: string[] }).args;

describe('Grid credentials', () => {
  it('travel from GRID_URL userinfo to a Basic header, and never in the address', () => {
    expect(splitCredentials('http://selenium-flow:p%40ss@127.0.0.1:4444/status')).toEqual({
      address: 'http://127.0.0.1:4444/status',
      authorization: `Basic ${Buffer.from('selenium-flow:p@ss').toString('base64')}`,
    });
    expect(splitCredentials('http://127.0.0.1:4444/status')).toEqual({ address: 'http://127.0.0.1:4444/status' });
    expect(withoutCredentials('https://u:secret@grid.internal:4444')).toBe('https://grid.internal:4444');
  });

  it('are accepted in GRID_URL', () => {
    expect(loadConfig({}, { GRID_URL: 'http://u:p@grid:4444' }).gridUrl).toBe('http://u:p@grid:4444');
  });
});

describe("Chromium's sandbox", () => {
  it('is kept unless a node cannot start it: --no-sandbox only with sandbox off', () => {
    expect(chromeArgs(browserCapabilities('chrome', WINDOW))).not.toContain('--no-sandbox');
    expect(chromeArgs(browserCapabilities('chrome', WINDOW, { sandbox: false }))).toContain('--no-sandbox');
  });

  it('is on for the embedded Grid and off for an external one unless BROWSER_SANDBOX says otherwise', () => {
    expect(browserSandbox(loadConfig({}, {}))).toBe(true);
    expect(browserSandbox(loadConfig({}, { GRID_URL: 'http://grid:4444' }))).toBe(false);
    expect(browserSandbox(loadConfig({}, { GRID_URL: 'http://grid:4444', BROWSER_SANDBOX: 'on' }))).toBe(true);
    expect(browserSandbox(loadConfig({}, { BROWSER_SANDBOX: 'off' }))).toBe(false);
    expect(() => loadConfig({}, { BROWSER_SANDBOX: 'yes' })).toThrow(/^BROWSER_SANDBOX must be "on" or "off"/);
  });
});

describe('BROWSER_LOOPBACK_PORTS', () => {
  it('lists the ports of this host the browsers may open, and refuses anything else', () => {
    expect(loadConfig({}, {}).browserLoopbackPorts).toEqual([]);
    expect(loadConfig({}, { BROWSER_LOOPBACK_PORTS: '3000,8000-8010' }).browserLoopbackPorts).toEqual([
      { from: 3000, to: 3000 },
      { from: 8000, to: 8010 },
    ]);
    expect(() => loadConfig({}, { BROWSER_LOOPBACK_PORTS: '3000, 5173' })).toThrow(
      /^BROWSER_LOOPBACK_PORTS must be ports or ranges/,
    );
    expect(() => loadConfig({}, { BROWSER_LOOPBACK_PORTS: '70000' })).toThrow(
      /^BROWSER_LOOPBACK_PORTS must hold ports from 1 to 65535/,
    );
    expect(() => loadConfig({}, { BROWSER_LOOPBACK_PORTS: '9000-8000' })).toThrow(/each range low-high/);
  });
});
