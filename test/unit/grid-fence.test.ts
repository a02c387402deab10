import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fenceForGrid,
  GridEndpoints,
  gridFenceRefusal,
  startGridFence,
  type GridFence,
} from '../../src/embedded-grid/grid-fence.js';
import { InstanceNotice } from '../../src/embedded-grid/neighbours.js';
import { NameResolver } from '../../src/embedded-grid/proxy-names.js';
import { loadConfig } from '../../src/config.js';
import { fencePlace } from '../../src/fence-settings.js';
import { browserCapabilities } from '../../src/grid/capabilities.js';
import { createParts } from '../../src/parts.js';

// The fence of a Grid this server did not start decides by what a node's network holds: the
// Grid itself, private networks, this host's ports. Judged here without a network to reach.

const grid = { addresses: new Set(['10.1.2.9', 'fd00::9']), hostPorts: new Set([4444]) };
const open = [
  { from: 3000, to: 3000 },
  { from: 4440, to: 4450 },
];

describe('the fence of a Grid at GRID_URL decides', () => {
  const refusal = gridFenceRefusal(open, [], grid);
  const allowing = gridFenceRefusal(open, ['10.1.0.0/16', 'fd12::/16', '*.corp.example', '192.168.7.7'], grid);

  it('opens the internet, and this host only on BROWSER_LOOPBACK_PORTS but the Grid’s own ports', () => {
    expect(refusal('93.184.215.14', 443, 'example.com')).toBeUndefined();
    expect(refusal('2606:2800:21f:cb07:6820:80da:af6b:8b2c', 443, undefined)).toBeUndefined();
    expect(refusal('127.0.0.1', 3000, undefined)).toBeUndefined();
    expect(refusal('127.0.0.1', 3001, 'localhost')).toMatch(/port 3001 of this host is closed/);
    expect(refusal('127.0.0.1', 4444, undefined)).toMatch(/port 4444 of this host is the Grid's/);
    expect(refusal('::ffff:127.0.0.1', 4445, undefined)).toBeUndefined();
  });

  it('closes private, shared, link-local and reserved networks, under any spelling, and the metadata service', () => {
    for (const address of [
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '100.64.0.1',
      '169.254.10.10',
      '224.0.0.251',
      '255.255.255.255',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      'fd12:3456::1',
      'fe80::1',
    ]) {
      expect(refusal(address, 80, undefined), address).toMatch(/private network/);
    }
    expect(refusal('169.254.169.254', 80, undefined)).toMatch(/metadata/);
    expect(allowing('169.254.169.254', 80, undefined)).toMatch(/metadata/);
  });

  it('opens what FENCE_ALLOW names, by range, address or host name; never the Grid’s own', () => {
    expect(allowing('10.1.200.3', 80, undefined)).toBeUndefined();
    expect(allowing('::ffff:10.1.200.3', 80, undefined)).toBeUndefined();
    expect(allowing('fd12:3456::1', 80, undefined)).toBeUndefined();
    expect(allowing('192.168.7.7', 80, undefined)).toBeUndefined();
    expect(allowing('192.168.7.8', 80, undefined)).toMatch(/private network/);
    expect(allowing('172.20.0.5', 443, 'wiki.corp.example')).toBeUndefined();
    expect(allowing('172.20.0.5', 443, 'wiki.corp.example.evil')).toMatch(/private network/);
    expect(allowing('10.2.0.1', 80, undefined)).toMatch(/private network/);
    expect(allowing('10.1.2.9', 5555, undefined)).toMatch(/the Grid's own/);
    expect(allowing('fd00::9', 5555, 'node.corp.example')).toMatch(/the Grid's own/);
  });
});

describe("the Grid's places, read from its /status", () => {
  let status: Server;
  let url: string;

  beforeAll(async () => {
    status = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          value: {
            ready: true,
            nodes: [
              { uri: 'http://10.20.30.40:5555', maxSessions: 4, slots: [] },
              { uri: 'http://[fd00::42]:5555', maxSessions: 1, slots: [] },
              { uri: 'http://127.0.0.1:5556', slots: [] },
            ],
          },
        }),
      );
    });
    await new Promise<void>((resolve) => status.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(status.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => status.close(resolve));
  });

  it("knows the hub's and each node's address, and on this host their ports", async () => {
    const endpoints = new GridEndpoints(url, new NameResolver());
    await endpoints.refresh();
    expect([...endpoints.addresses].sort()).toEqual(['10.20.30.40', 'fd00::42']);
    expect([...endpoints.hostPorts].sort()).toEqual([Number(new URL(url).port), 5556].sort());
    expect(endpoints.browsers('10.20.30.40')).toBe(4);
    expect(endpoints.browsers('10.9.9.9')).toBe(1);
  });

  it('will not start for a Grid on this host whose nodes run elsewhere, without FENCE_ADDRESS', async () => {
    const settings = { gridUrl: url, browserFence: 'proxy' as const, browserLoopbackPorts: [], fenceAllow: [] };
    await expect(fenceForGrid(settings)).rejects.toThrow(
      /runs a node at 10\.20\.30\.40:5555, whose browsers cannot reach this host's loopback: set FENCE_ADDRESS/,
    );
    const placed = await fenceForGrid({ ...settings, fenceAddress: { host: '127.0.0.1', port: 0 } });
    expect(placed.fence.kind).toBe('grid-proxy');
    await placed.stop();
  });

  describe('a running fence', () => {
    let fence: GridFence;
    let notice: InstanceNotice;

    beforeAll(async () => {
      notice = await InstanceNotice.open();
      fence = await startGridFence({
        gridUrl: url,
        listen: { host: '127.0.0.1', port: 0 },
        loopbackPorts: [],
        allow: [],
        notice,
      });
    });

    afterAll(async () => {
      await fence?.stop();
      await notice?.withdraw();
    });

    it('listens where it says, and refuses the Grid to a browser of this host', async () => {
      expect(fence.address.host).toBe('127.0.0.1');
      expect(fence.fence).toEqual({
        kind: 'grid-proxy',
        summary: `proxy at 127.0.0.1:${fence.address.port} for the Grid's browsers (every port of this host closed; private networks closed but none; the Grid's own closed)`,
      });
      const answer = await new Promise<string>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port: fence.address.port });
        let got = '';
        socket.on('data', (chunk) => (got += chunk.toString()));
        socket.on('close', () => resolve(got));
        socket.write('CONNECT 10.20.30.40:5555 HTTP/1.1\r\nHost: 10.20.30.40:5555\r\n\r\n');
      });
      expect(answer).toMatch(/^HTTP\/1\.1 403 [\s\S]*the Grid's own[\s\S]*FENCE_ALLOW \(now: none\)/);
    });
  });
});

describe('where the fence listens, and where the nodes reach it', () => {
  const place = (env: Record<string, string>) => {
    const config = loadConfig({}, env);
    return fencePlace({ ...config, gridUrl: config.gridUrl ?? '' });
  };

  it('on loopback, on a free port, for a Grid on this host', () => {
    expect(place({ GRID_URL: 'http://127.0.0.1:4444' })).toEqual({ listen: { host: '127.0.0.1', port: 0 } });
  });

  it('on every address, on the port the nodes use, for a Grid elsewhere', () => {
    expect(place({ GRID_URL: 'http://hub:4444', FENCE_ADDRESS: 'selenium-flow:4445' })).toEqual({
      listen: { host: '0.0.0.0', port: 4445 },
      address: { host: 'selenium-flow', port: 4445 },
    });
    expect(
      place({ GRID_URL: 'http://hub:4444', FENCE_ADDRESS: '10.0.0.5:4445', FENCE_LISTEN: '10.0.0.5:4445' }),
    ).toEqual({ listen: { host: '10.0.0.5', port: 4445 }, address: { host: '10.0.0.5', port: 4445 } });
  });

  it('nowhere, saying what to set, for a Grid elsewhere without FENCE_ADDRESS', () => {
    expect(place({ GRID_URL: 'http://hub:4444' })).toEqual({
      missing: expect.stringMatching(/FENCE_ADDRESS is not set: set it to .* or set BROWSER_FENCE=off/) as unknown,
    });
  });

  it('refuses a FENCE_ADDRESS or FENCE_ALLOW it cannot read, naming the form', () => {
    expect(() => loadConfig({}, { FENCE_ADDRESS: 'selenium-flow' })).toThrow(
      /FENCE_ADDRESS must be a host and port such as selenium-flow:4445/,
    );
    expect(() => loadConfig({}, { FENCE_ADDRESS: 'selenium-flow:0' })).toThrow(/must name a port from 1 to 65535/);
    expect(() => loadConfig({}, { FENCE_ALLOW: '10.0.0.0/33' })).toThrow(/FENCE_ALLOW must list host names/);
    expect(loadConfig({}, { FENCE_ALLOW: '10.0.0.0/8, *.Corp.Example,fd00::/8' }).fenceAllow).toEqual([
      '10.0.0.0/8',
      '*.corp.example',
      'fd00::/8',
    ]);
  });
});

describe('the capabilities that send a browser through the fence', () => {
  const size = { width: 800, height: 600 };

  it('give Chromium the proxy for everything, loopback too, WebRTC only through it, no QUIC', () => {
    const chrome = browserCapabilities('chrome', size, { proxy: 'selenium-flow:4445' });
    expect((chrome['goog:chromeOptions'] as { args: string[] }).args).toEqual(
      expect.arrayContaining([
        '--proxy-server=http://selenium-flow:4445',
        '--proxy-bypass-list=<-loopback>',
        '--webrtc-ip-handling-policy=disable_non_proxied_udp',
        '--disable-quic',
      ]),
    );
    expect(JSON.stringify(browserCapabilities('chrome', size))).not.toContain('proxy');
  });

  it("give Firefox the proxy's prefs, hijacking localhost, ICE through the proxy only, no HTTP/3", () => {
    const firefox = browserCapabilities('firefox', size, { proxy: '[fd00::5]:4445' });
    expect((firefox['moz:firefoxOptions'] as { prefs: Record<string, unknown> }).prefs).toMatchObject({
      'network.proxy.type': 1,
      'network.proxy.http': 'fd00::5',
      'network.proxy.http_port': 4445,
      'network.proxy.ssl': 'fd00::5',
      'network.proxy.ssl_port': 4445,
      'network.proxy.no_proxies_on': '',
      'network.proxy.allow_hijacking_localhost': true,
      'network.proxy.failover_direct': false,
      'media.peerconnection.ice.proxy_only': true,
      'network.http.http3.enable': false,
    });
  });

  it('are asked of a Grid at GRID_URL by FENCE_ADDRESS, and of none with BROWSER_FENCE=off', async () => {
    const asked = async (env: Record<string, string>) => {
      const parts = createParts(loadConfig({}, { GRID_URL: 'http://127.0.0.1:9', ...env }), 'http://127.0.0.1:9');
      try {
        return JSON.stringify(await parts.grid.capabilitiesFor('chrome', size));
      } finally {
        await parts.close();
      }
    };
    expect(await asked({ FENCE_ADDRESS: 'selenium-flow:4445' })).toContain('--proxy-server=http://selenium-flow:4445');
    expect(await asked({ FENCE_ADDRESS: 'selenium-flow:4445', BROWSER_FENCE: 'off' })).not.toContain('--proxy-server');
  });
});
