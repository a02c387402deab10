import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Grid } from '../../src/grid/grid.js';
import { readGridStatus, slotCapacity } from '../../src/grid/status.js';

// A Selenium Grid 4 /status answer as the hub sends it, with the odd fields a real Grid
// cannot be made to send on demand: a node whose version is a number, a slot that is no object.
const STATUS = {
  value: {
    ready: true,
    message: 'Selenium Grid ready.',
    nodes: [
      {
        id: 'node-a',
        uri: 'http://10.0.0.7:5555',
        maxSessions: 2,
        osInfo: { arch: 'amd64', name: 'Linux', version: '6.1' },
        availability: 'UP',
        version: '4.48.0 (revision 1)',
        slots: [
          {
            id: { hostId: 'node-a', id: 's1' },
            lastStarted: '1970-01-01T00:00:00Z',
            session: null,
            stereotype: { browserName: 'chrome', platformName: 'linux', 'se:vncEnabled': true },
            // a VNC slot without selenium-flow:lockedWindow: offered, but never watched
          },
          {
            id: { hostId: 'node-a', id: 's2' },
            session: {
              sessionId: 'abc123',
              start: '2026-12-03T18:00:00Z',
              capabilities: { browserName: 'chrome', browserVersion: '131.0' },
              uri: 'http://10.0.0.7:5555',
            },
            stereotype: { browserName: 'chrome', platformName: 'linux' },
          },
        ],
      },
      { id: 'node-b', availability: 'DOWN', version: 4, slots: [{ stereotype: { browserName: 'firefox' } }] },
    ],
  },
};

let answer: unknown = STATUS;
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(typeof answer === 'string' ? answer : JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("the Grid's /status, read through one schema", () => {
  it('reads nodes, slots and sessions, and an odd field as absent', async () => {
    answer = STATUS;
    const status = await readGridStatus(url);
    expect(status).toMatchObject({ reachable: true, ready: true, message: 'Selenium Grid ready.' });
    expect(status.nodes[0]).toMatchObject({ id: 'node-a', os: 'Linux 6.1', maxSessions: 2 });
    expect(status.nodes[0]?.slots.map((s) => s.session?.gridId ?? null)).toEqual([null, 'abc123']);
    expect(status.nodes[1]).toMatchObject({ id: 'node-b', availability: 'DOWN', version: null });
    expect(JSON.stringify(status)).not.toContain('10.0.0.7');
  });

  it('counts the slots and browsers of the nodes that are up only', async () => {
    answer = STATUS;
    const grid = new Grid(url);
    expect(await grid.slotCount()).toEqual({ free: 1, used: 1 });
    expect([...(await grid.offeredBrowsers())]).toEqual(['chrome']);
    expect(await grid.liveViewOffered()).toBe('unlocked');
    expect(await grid.isReachable()).toBe(true);
  });

  it('counts a node by its maxSessions, not by a slot per browser it offers', async () => {
    const slot = (browserName: string, sessionId?: string) => ({
      stereotype: { browserName },
      session: sessionId ? { sessionId, capabilities: { browserName } } : null,
    });
    const node = (slots: object[]) => ({ id: 'one', availability: 'UP', maxSessions: 1, slots });
    answer = { value: { ready: true, nodes: [node([slot('chrome'), slot('firefox')])] } };
    expect(slotCapacity((await readGridStatus(url)).nodes)).toEqual({ free: 1, used: 0, total: 1 });
    expect(await new Grid(url).slotCount()).toEqual({ free: 1, used: 0 });
    answer = { value: { ready: false, nodes: [node([slot('chrome'), slot('firefox', 'f1')])] } };
    expect(slotCapacity((await readGridStatus(url)).nodes)).toEqual({ free: 0, used: 1, total: 1 });
    expect(await new Grid(url).slotCount()).toEqual({ free: 0, used: 1 });
  });

  it('takes an answer that is not a status (a proxy page) as no Grid', async () => {
    for (const body of ['<html>Bad gateway</html>', { error: 'nope' }, { value: 'ready' }]) {
      answer = body;
      expect(await readGridStatus(url)).toEqual({ reachable: false, ready: false, message: null, nodes: [] });
      expect(await new Grid(url).isReachable()).toBe(false);
      await expect(new Grid(url).liveViewOffered()).rejects.toThrow(/did not answer its status/);
    }
  });
});
