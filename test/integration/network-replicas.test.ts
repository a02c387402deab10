import { Redis } from 'ioredis';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectMcp } from '../helpers/server.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';
import { spawnReplica, type Replica } from '../helpers/replica.js';
import { secretsDir } from '../helpers/secrets.js';
import { toolClient } from '../helpers/tools.js';

/** The value that must never come back from any capture surface, on either replica, nor sit in the store. */
const CANARY = 'Canary-net-5b19 pw!';
const FORMS = [
  CANARY,
  encodeURIComponent(CANARY),
  encodeURIComponent(CANARY).replace(/%20/g, '+'),
  Buffer.from(CANARY).toString('base64'),
];
const site = () => inject('siteUrl');

interface Entry {
  id: string;
  method: string;
  url: string;
  status: number | null;
  body: boolean;
  withheld?: true;
}

let redis: RunningRedis;
let a: Replica;
let b: Replica;
let dataDir: string;
/** every answer read from a capture surface, verbatim */
const answers: string[] = [];

/** The tools as an HTTP client calls them, through one replica, in the file's workspace; every answer kept. */
const tools = (replica: Replica) =>
  toolClient(replica.url, {
    workspace: 'net-replicas',
    onAnswer: (answer) => answers.push(JSON.stringify(answer.body)),
  });

async function listedOn(replica: Replica, fragment: string): Promise<Entry[]> {
  const until = Date.now() + 15_000;
  for (;;) {
    const listing = (await tools(replica).call('workspace_network')).body as { requests: Entry[] };
    if (listing.requests.some((r) => r.url.includes(fragment)) || Date.now() > until) {
      return listing.requests;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  redis = await startRedis();
  dataDir = await mkdtemp(join(tmpdir(), 'sf-net-replicas-'));
  const secrets = await secretsDir({ canary: { password: CANARY, _allowed_urls: `${site()}\n` } });
  const env = {
    GRID_URL: inject('gridUrl'),
    REDIS_URL: redis.url,
    SECRETS_DIRS: secrets,
    SECRETS_KUBERNETES: 'off',
    FLOW_DATA_DIR: dataDir,
    LOG_LEVEL: 'trace',
  };
  [a, b] = await Promise.all([spawnReplica(env), spawnReplica(env)]);
});

afterAll(async () => {
  if (a) {
    await tools(a)
      .call('end_browser')
      .catch(() => undefined);
  }
  await Promise.all([a?.kill('SIGTERM'), b?.kill('SIGTERM')]);
  await redis?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('network capture across replicas, with a secret typed into the captured page', { timeout: 180_000 }, () => {
  it('captures through replica A; replica B lists it and reads its bodies', async () => {
    await tools(a).call('navigate', { url: `${site()}/network.html` });
    expect((await tools(a).call('capture_network', { on: true })).status).toBe(200);
    await tools(a).call('interact', { action: 'click', selector: { css: '#orders' } });
    const listed = await listedOn(b, '/api/orders?page=2');
    const orders = listed.find((r) => r.url.includes('/api/orders?page=2'));
    expect(orders).toMatchObject({ status: 200, body: true });
    const body = await tools(b).call('network_body', { request: orders?.id });
    expect(body.status).toBe(200);
    expect(JSON.parse(String(body.body.text))).toMatchObject({ page: 2 });
  });

  it('withholds the secret a form posted and the page echoed, on every capture surface of both replicas', async () => {
    const typed = await tools(a).call('write', {
      selector: { css: '#message' },
      secret: { name: 'canary', key: 'password' },
      submit: true,
    });
    expect(typed.status).toBe(200);
    const requests = await listedOn(b, '/api/orders?q=');
    const echo = requests.find((r) => r.url.endsWith('/api/echo') && r.method === 'POST');
    const carried = requests.find((r) => r.withheld);
    // The page asked its API with the value in the URL: only the origin is listed.
    expect(carried).toMatchObject({ url: new URL(site()).origin, withheld: true, body: false });
    expect(echo).toMatchObject({ status: 200, body: true });

    for (const replica of [a, b]) {
      for (const request of requests) {
        await tools(replica).call('network_body', { request: request.id });
      }
      const echoed = await tools(replica).call('network_body', { request: echo?.id });
      expect(echoed.body).toMatchObject({ text: '', withheld: true });
      await tools(replica).call('workspace_network');
      await tools(replica).call('workspace_network', { match: '*Canary*' });
      const mcp = await connectMcp(replica.url, '2026-07-28', { workspace: 'net-replicas' });
      try {
        answers.push(await mcp.readResource('workspace://network'));
        answers.push(JSON.stringify(await mcp.call('workspace_network', {})));
        answers.push(JSON.stringify(await mcp.call('network_body', { request: echo?.id ?? '' })));
      } finally {
        await mcp.close();
      }
    }
  });

  it('turning capture off through B stops the monitor A runs', async () => {
    expect((await tools(b).call('capture_network', { on: false })).body).toMatchObject({
      capturing: false,
    });
    const listing = (await tools(a).call('workspace_network')).body;
    expect(listing.capturing).toBe(false);
    // A lets go at its next request or watch; either way its list no longer grows.
    await tools(a).call('navigate', { url: `${site()}/network.html` });
    await tools(a).call('interact', { action: 'click', selector: { css: '#missing' } });
    // The page shows the answer's status once the browser has it: the request was made and answered, and a
    // monitor still running would have been sent its events (its write to the log may trail by a few ms).
    const shown = async () =>
      (
        await tools(a).call('execute_script', {
          script: "return document.getElementById('missing-shown').textContent",
        })
      ).body.result;
    await expect.poll(shown, { timeout: 15_000 }).toBe('status 404');
    const after = (await tools(b).call('workspace_network')).body as { requests: Entry[] };
    expect(after.requests.some((r) => r.url.includes('/api/missing'))).toBe(false);
  });

  it('leaves the value nowhere: no capture answer, no store entry, no log line', async () => {
    const client = new Redis(redis.url);
    let stored = '';
    try {
      for (const key of await client.keys('selenium-flow:network:*')) {
        const type = await client.type(key);
        stored += type === 'list' ? (await client.lrange(key, 0, -1)).join('\n') : ((await client.get(key)) ?? '');
      }
    } finally {
      client.disconnect();
    }
    expect(stored).toContain('/api/echo');
    expect(answers.length).toBeGreaterThan(15);
    const haystacks = { answers: answers.join('\n'), stored, logA: a.output(), logB: b.output() };
    for (const [where, text] of Object.entries(haystacks)) {
      for (const form of FORMS) {
        expect(text.includes(form), `${where} carries ${JSON.stringify(form)}`).toBe(false);
      }
    }
  });
});
