import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { spawnReplica, type Replica } from '../helpers/replica.js';

/**
 * Issue 23 §1: each attack that once stalled the whole server, against a real `serve` process.
 * The attack has a deadline, and /health is asked every 200 ms meanwhile: each must answer
 * within a second, since a stalled event loop stalls every caller, not only the attacker.
 */
const site = inject('siteUrl');
const WORKSPACE = { 'X-Workspace': 'attacker' };
const ATTACK_DEADLINE_MS = 60_000;

let server: Replica;
let base: string;

beforeAll(async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'attacks-'));
  // Its own process group, signalled whole: no server outlives the file.
  server = await spawnReplica({ GRID_URL: inject('gridUrl'), FLOW_DATA_DIR: dataDir });
  base = server.url;
});

afterAll(async () => {
  await fetch(`${base}/browser/end-browser`, {
    method: 'POST',
    headers: { ...WORKSPACE, 'content-type': 'application/json' },
    body: '{}',
  }).catch(() => undefined);
  await server.kill('SIGTERM');
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function send(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Answer> {
  const response = await fetch(base + path, {
    method,
    headers: { ...WORKSPACE, ...(body === undefined ? {} : { 'content-type': contentType }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(ATTACK_DEADLINE_MS),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Runs the attack while asking /health; answers the attack's answer and every health check's time. */
async function underAttack(attack: () => Promise<Answer>): Promise<Answer> {
  let done = false;
  const waits: number[] = [];
  const failures: string[] = [];
  const probe = async () => {
    while (!done || waits.length === 0) {
      const started = Date.now();
      try {
        const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(1000) });
        waits.push(Date.now() - started);
        expect(response.status).toBe(200);
      } catch (err) {
        failures.push(`/health did not answer within 1 s (${(err as Error).name})`);
        waits.push(Date.now() - started);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const probing = probe();
  try {
    return await attack();
  } finally {
    done = true;
    await probing;
    expect(failures).toEqual([]);
  }
}

const errorMessage = (answer: Answer) => (answer.body.error as { message?: string } | undefined)?.message ?? '';

describe('attacks on a running server (issue 23)', () => {
  beforeAll(async () => {
    const opened = await send('POST', '/browser/navigate', { url: `${site}/login.html` });
    expect(opened.status).toBe(200);
  });

  it('glob: the most * allowed against a long URL, while the flows for this page are listed', async () => {
    const glob = `${'*a'.repeat(16)}b`;
    expect(
      (
        await send('PUT', '/flows/globbed', {
          urls: [glob],
          steps: [{ tool: 'navigate', args: { action: 'refresh' } }],
        })
      ).status,
    ).toBe(200);
    const tooMany = await send('PUT', '/flows/globbed', {
      urls: [`${'*a'.repeat(40)}b`],
      steps: [{ tool: 'navigate', args: { action: 'refresh' } }],
    });
    expect(tooMany.status).toBe(400);
    expect(errorMessage(tooMany)).toMatch(/at most 16 "\*"/);
    const long = `${site}/login.html?${'a'.repeat(7000)}`;
    expect((await send('POST', '/browser/navigate', { url: long })).status).toBe(200);
    const listed = await underAttack(() => send('GET', '/flows'));
    expect(listed.status).toBe(200);
    expect((listed.body.flows as { name: string }[]).map((f) => f.name)).not.toContain('globbed');
  });

  it('regex: ^(a+)+$ against a 41-character parameter', async () => {
    const flow = {
      parameters: { type: 'object', properties: { p: { type: 'string', pattern: '^(a+)+$' } }, required: ['p'] },
      steps: [{ tool: 'execute_script', args: { script: "return '${p}'.length" } }],
    };
    expect((await send('PUT', '/flows/redos', flow)).status).toBe(200);
    const run = await underAttack(() => send('POST', '/flows/redos/run', { params: { p: `${'a'.repeat(40)}!` } }));
    expect(run.status).toBe(400);
    expect(errorMessage(run)).toBe('Invalid params: p must match ^(a+)+$; pass p in that form.');
    const fine = await send('POST', '/flows/redos/run', { params: { p: 'a'.repeat(40) } });
    expect(fine.status).toBe(200);
    expect(fine.body.result).toMatchObject({ result: 40 });
  });

  it('YAML: billion laughs and deep nesting', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [prev, next] of [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'd'],
      ['d', 'e'],
      ['e', 'f'],
      ['f', 'g'],
      ['g', 'h'],
      ['h', 'i'],
    ]) {
      levels.push(`${next}: &${next} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const laughs = await underAttack(() =>
      send('PUT', '/flows/laughs', `${levels.join('\n')}\nsteps: [*i]\n`, 'application/yaml'),
    );
    expect(laughs.status).toBe(400);
    expect(errorMessage(laughs)).toMatch(/aliases .* more than 100 times/);
    const depth = 120_000;
    const deep = await underAttack(() =>
      send('PUT', '/flows/deep', `steps: ${'['.repeat(depth)}${']'.repeat(depth)}`, 'application/yaml'),
    );
    expect(deep.status).toBe(400);
    expect(errorMessage(deep)).toMatch(/deeper than 32 levels/);
  });

  it('huge text: 1 MB typed into a field', async () => {
    const typed = await underAttack(() =>
      send('POST', '/browser/write', { selector: { css: '#email' }, text: 'x'.repeat(1024 * 1024) }),
    );
    expect(typed.status).toBe(400);
    expect(errorMessage(typed)).toMatch(/at most 20000 characters/);
  });

  it('huge script answer: 50 MB returned by execute_script', async () => {
    const answer = await underAttack(() =>
      send('POST', '/browser/execute-script', { script: "return 'x'.repeat(50 * 1024 * 1024)" }),
    );
    expect(answer.status).toBe(400);
    expect(errorMessage(answer)).toMatch(/over the 1000000-byte limit of execute_script \(as JSON\); return less/);
    expect((await send('POST', '/browser/execute-script', { script: 'return 1 + 1' })).body.result).toBe(2);
  });

  it('huge download: 512 MiB of zeros a page had the browser download, then kept', async () => {
    // Zeros zip to almost nothing on the Grid: read whole, they were 512 MiB inflated in one
    // synchronous step, and /health went unanswered for seconds (1.5 GB: 12 s, 1.6 GB held).
    const size = 512 * 1024 * 1024;
    expect((await send('POST', '/browser/navigate', { url: `${site}/login.html` })).status).toBe(200);
    const started = await send('POST', '/browser/execute-script', {
      script: `setTimeout(() => { location.href = '${site}/files/zeros.bin?size=${size}'; }); return 1`,
    });
    expect(started.status).toBe(200);
    await expect
      .poll(
        async () =>
          ((await send('GET', '/files?folder=downloads')).body.files as { name: string; size: number }[]).some(
            (file) => file.name === 'zeros.bin' && file.size === size,
          ),
        { timeout: 60_000, interval: 1_000 },
      )
      .toBe(true);
    const kept = await underAttack(() => send('POST', '/files/kept', { uri: 'workspace://files/downloads/zeros.bin' }));
    expect(kept.status).toBe(413);
    expect(errorMessage(kept)).toMatch(/over the 67108864-byte limit of what this server reads of a download/);
  }, 150_000);
});

describe('a hostile page against network capture', () => {
  /** Capture on, on a plain page, while `attack` runs; off again however it ends. */
  async function withCaptureOn(attack: () => Promise<void>): Promise<void> {
    expect((await send('POST', '/browser/navigate', { url: `${site}/table.html` })).status).toBe(200);
    expect((await send('POST', '/browser/capture-network', { on: true })).status).toBe(200);
    try {
      await attack();
    } finally {
      await send('POST', '/browser/capture-network', { on: false });
    }
  }

  /** Capture still works after the attack: a plain page's own request is logged. */
  async function expectCaptureOfPlainPage(): Promise<void> {
    expect((await send('POST', '/browser/navigate', { url: `${site}/table.html` })).status).toBe(200);
    const listed = await send('GET', '/workspace/network');
    expect(listed.body.capturing).toBe(true);
    expect((listed.body.requests as { url: string }[]).some((r) => r.url.endsWith('/table.html'))).toBe(true);
  }

  it('floods requests while capture is on: the log stays bounded and /health answers', async () => {
    await withCaptureOn(async () => {
      const listed = await underAttack(async () => {
        expect((await send('POST', '/browser/navigate', { url: `${site}/hostile/request-flood.html` })).status).toBe(
          200,
        );
        // The page floods for ten seconds; read the log while it does.
        let answer = await send('GET', '/workspace/network');
        for (const started = Date.now(); Date.now() - started < 8_000;) {
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          answer = await send('GET', '/workspace/network');
        }
        return answer;
      });
      expect(listed.status).toBe(200);
      expect((listed.body.requests as unknown[]).length).toBeLessThanOrEqual(200);
      expect(listed.body.dropped as number).toBeGreaterThan(0);
    });
  });

  it('logs 30 MB strings, each under the cap, for eight seconds: /health answers and capture goes on', async () => {
    await withCaptureOn(async () => {
      await underAttack(async () => {
        const flooded = await send('POST', '/browser/navigate', { url: `${site}/hostile/console-flood.html?mb=30` });
        expect(flooded.status).toBe(200);
        // Each message is parsed; the page is still logging when it has answered, for 8 s.
        for (let polls = 0; polls < 8; polls += 1) {
          expect((await send('GET', '/workspace/network')).body.capturing).toBe(true);
          await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
        return flooded;
      });
      await expectCaptureOfPlainPage();
    });
  });

  it('logs 48 MB strings while capture is on: /health answers, capture says it ended, and starts again', async () => {
    await withCaptureOn(async () => {
      await underAttack(async () => {
        const flooded = await send('POST', '/browser/navigate', { url: `${site}/hostile/console-flood.html` });
        expect(flooded.status).toBe(200);
        // A message over the cap closes the connection: the capture says it ended while the page
        // still logs, and /health answers throughout.
        await expect
          .poll(async () => (await send('GET', '/workspace/network')).body.capturing, { timeout: 10_000 })
          .toBe(false);
        expect((await send('GET', '/workspace/network')).body.stopped).toMatch(
          /^Capture stopped at \d\d:\d\d UTC: a DevTools message from the page was larger than the server takes/,
        );
        return flooded;
      });
      expect((await send('POST', '/browser/navigate', { url: `${site}/table.html` })).status).toBe(200);
      expect((await send('POST', '/browser/capture-network', { on: true })).status).toBe(200);
      await expectCaptureOfPlainPage();
    });
  });
});
