import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultDataDir, flagOptions, loadConfig, readConfigFile } from '../../src/config.js';

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

  it('waits 90 s in await_control by default, and never less than 30', () => {
    expect(loadConfig({}, {}).liveAwaitCap).toBe(90);
    expect(loadConfig({}, { LIVE_AWAIT_CAP: '30' }).liveAwaitCap).toBe(30);
    expect(() => loadConfig({}, { LIVE_AWAIT_CAP: '10' })).toThrow(/^LIVE_AWAIT_CAP .*>=30/);
  });

  it("refuses to open the server's own port to the embedded Grid's browsers", () => {
    expect(() => loadConfig({}, { BROWSER_LOOPBACK_PORTS: '3000,8000-8100' })).toThrow(
      "BROWSER_LOOPBACK_PORTS opens port 8080, this server's own, to the browsers: a page could call the server as its own origin; take 8080 out of BROWSER_LOOPBACK_PORTS, or set PORT to another.",
    );
    expect(loadConfig({}, { BROWSER_LOOPBACK_PORTS: '3000,8000-8100', PORT: '9000' }).port).toBe(9000);
    // Another Grid's browsers are not fenced by this setting; a command that serves nothing has no port.
    expect(() => loadConfig({}, { BROWSER_LOOPBACK_PORTS: '8080', GRID_URL: 'http://grid:4444' })).not.toThrow();
    expect(() => loadConfig({}, { BROWSER_LOOPBACK_PORTS: '8080' }, { command: 'stdio' })).not.toThrow();
  });

  it('refuses a non-loopback HOST without a token, and accepts it with one', () => {
    expect(() => loadConfig({}, { HOST: '0.0.0.0' })).toThrow(/MCP_AUTH_TOKEN .* is required when HOST is 0.0.0.0/);
    expect(loadConfig({}, { HOST: '0.0.0.0', MCP_AUTH_TOKEN: 'a'.repeat(24) }).host).toBe('0.0.0.0');
  });
});

describe('where a setting comes from', () => {
  const dir = mkdtempSync(join(tmpdir(), 'selenium-flow-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('has a flag for every setting, derived from its env name when none is declared', () => {
    for (const [command, flag] of [
      ['serve', 'port'],
      ['serve', 'browser-sandbox'],
      ['stdio', 'session-ttl'],
      ['grid', 'browser-loopback-ports'],
    ] as const) {
      expect(Object.keys(flagOptions(command))).toContain(flag);
    }
    expect(loadConfig({ 'call-timeout': '30' }, {}).callTimeout).toBe(30);
    expect(loadConfig({ 'browser-sandbox': 'off' }, {}).browserSandbox).toBe('off');
  });

  it('takes SELENIUM_FLOW_<NAME> beside <NAME>, the namespaced one winning', () => {
    expect(loadConfig({}, { SELENIUM_FLOW_PORT: '9001' }).port).toBe(9001);
    expect(loadConfig({}, { SELENIUM_FLOW_PORT: '9001', PORT: '9002' }).port).toBe(9001);
    expect(loadConfig({}, { SELENIUM_FLOW_GRID_URL: 'http://grid:4444' }).gridUrl).toBe('http://grid:4444');
    expect(() => loadConfig({}, { SELENIUM_FLOW_LOG_LEVEL: 'loud' })).toThrow(/^LOG_LEVEL \(--log-level\)/);
  });

  it('reads a YAML or JSON file, keyed by flag or env name, below env vars and flags', () => {
    const yaml = readConfigFile(
      write(
        'a.yaml',
        'port: 9100\ngrid-url: http://grid:4444\nSESSION_TTL: 120\nsecrets-dirs: [/a, /b]\nmirror-tools: off\n',
      ),
    );
    expect(loadConfig({}, {}, { file: yaml })).toMatchObject({
      port: 9100,
      gridUrl: 'http://grid:4444',
      sessionTtl: 120,
      secretsDirs: ['/a', '/b'],
      mirrorTools: 'off',
    });
    expect(loadConfig({}, { PORT: '9200' }, { file: yaml }).port).toBe(9200);
    expect(loadConfig({ port: '9300' }, { PORT: '9200' }, { file: yaml }).port).toBe(9300);
    const json = readConfigFile(write('b.json', '{"port": 9400, "allowed-hosts": ["a.example", "b.example"]}'));
    expect(loadConfig({}, {}, { file: json })).toMatchObject({ port: 9400, allowedHosts: ['a.example', 'b.example'] });
  });

  it('validates a file value by the same schema, naming the setting and the file', () => {
    const bad = readConfigFile(write('bad.yaml', 'port: eighty\n'));
    expect(() => loadConfig({}, {}, { file: bad })).toThrow(`PORT (--port) in ${join(dir, 'bad.yaml')} `);
    expect(() => readConfigFile(write('unknown.yaml', 'prot: 8080\n'))).toThrow(/unknown setting "prot"/);
    expect(() => readConfigFile(write('list.yaml', '- port\n'))).toThrow(/must hold a mapping of settings/);
    expect(() => readConfigFile(write('broken.json', '{"port": '))).toThrow(/neither JSON nor YAML/);
    expect(() => readConfigFile(join(dir, 'absent.yaml'))).toThrow(/cannot be read \(ENOENT\)/);
  });

  it('checks only what the command reads: a public HOST does not stop stdio or grid', () => {
    const env = { HOST: '0.0.0.0', PORT: 'eighty' };
    expect(() => loadConfig({}, env, { command: 'serve' })).toThrow(/^PORT/);
    expect(loadConfig({}, env, { command: 'stdio' }).host).toBe('127.0.0.1');
    expect(loadConfig({}, { ...env, GRID_URL: 'not a url' }, { command: 'grid' }).gridUrl).toBeUndefined();
    expect(() => loadConfig({}, { HOST: '0.0.0.0' }, { command: 'serve' })).toThrow(/MCP_AUTH_TOKEN/);
    expect(Object.keys(flagOptions('stdio'))).not.toContain('port');
  });

  it('puts the default data directory in the XDG data home', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/srv/data' })).toBe('/srv/data/selenium-flow');
    // A relative XDG_DATA_HOME is to be ignored (XDG Base Directory spec).
    expect(defaultDataDir({ XDG_DATA_HOME: 'data' })).toBe(join(homedir(), '.local/share/selenium-flow'));
    expect(defaultDataDir({})).toBe(join(homedir(), '.local/share/selenium-flow'));
  });
});
