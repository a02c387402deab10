import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { connectMcp, rest, startServer, type RunningServer } from '../helpers/server.js';
import { toolClient } from '../helpers/tools.js';

let running: RunningServer;
let dataDir: string;
const site = () => inject('siteUrl');
const tools = toolClient(() => running.url, { workspace: 'flows-refused' });
const { call } = tools;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'flows-it-'));
  // The shared library is an operator's: it is written on disk, never through the API.
  await mkdir(join(dataDir, 'global', 'flows'), { recursive: true });
  await writeFile(
    join(dataDir, 'global', 'flows', 'shared.yaml'),
    'description: from global\nsteps:\n  - tool: navigate\n    args: {action: back}\n',
  );
  await writeFile(
    join(dataDir, 'global', 'flows', 'mine.yaml'),
    'description: global mine\nsteps:\n  - tool: navigate\n    args: {action: back}\n',
  );
  running = await startServer({ FLOW_DATA_DIR: dataDir });
});
afterAll(async () => {
  await running.close();
});

async function put(workspace: string, name: string, document: string | object, headers: Record<string, string> = {}) {
  const response = await fetch(`${running.url}/flows/${name}`, {
    method: 'PUT',
    headers: {
      'X-Workspace': workspace,
      'content-type': typeof document === 'string' ? 'application/yaml' : 'application/json',
      ...headers,
    },
    body: typeof document === 'string' ? document : JSON.stringify(document),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const LOGIN_FLOW = `# Log in to the fixture site; kept as written, comments and all.
description: Log in and read the greeting
urls: ["${'${site}'}/login.html"]
parameters:
  type: object
  properties:
    email: {type: string, description: the account}
    page: {type: string, default: login.html}
  required: [email]
steps:
  - tool: navigate
    args: {url: "SITE/\${page}"}
  - id: email
    tool: write
    args: {selector: {css: "#email"}, text: "\${email}"}
  - tool: write
    args: {selector: {css: "#password"}, text: "not-a-secret"}
  - tool: interact
    args: {action: click, selector: {css: "#submit"}}
  - id: greeting
    tool: extract
    args: {selector: {css: "#greeting"}}
    return: true
    note: what a person sees first
`;

describe('a flow', () => {
  it('saved as YAML runs end to end with parameters and a default, and keeps its comments', async () => {
    const ws = { 'X-Workspace': 'flows-login' };
    const text = LOGIN_FLOW.replace('SITE', site()).replace('${site}', site());
    const saved = await put('flows-login', 'login', text);
    expect(saved).toMatchObject({ status: 200, body: { name: 'login', created: true } });
    expect(await readFile(join(dataDir, 'flows-login', 'flows', 'login.yaml'), 'utf8')).toBe(text);
    const run = await rest(running.url, '/flows/login/run', { params: { email: 'ada@example.com' } }, ws);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({
      flow: 'login',
      status: 'ok',
      steps_run: 5,
      steps_total: 5,
      returned: { greeting: { value: 'Welcome, ada@example.com' } },
      result: { value: 'Welcome, ada@example.com' },
    });
    expect((run.body.steps as { summary: string }[])[0]?.summary).toBe(`went to ${site()}/login.html`);
    // The last step read without answering the page, so the run asked the browser, and remembered it.
    expect(run.body).toMatchObject({
      url: expect.stringContaining(`${site()}/welcome.html?`) as unknown,
      title: 'Welcome',
    });
    expect((await rest(running.url, '/workspace', undefined, ws)).body).toMatchObject({
      url: run.body.url,
      title: 'Welcome',
    });
    const read = await rest(running.url, '/flows/login', undefined, ws);
    expect(read.body).toMatchObject({ name: 'login', shared: false, text, revision: saved.body.revision });
    await rest(running.url, '/browser/end-browser', {}, ws);
  });

  it('that fails mid-run reports the failed step, its error and the page, and stops', async () => {
    const ws = { 'X-Workspace': 'flows-fail' };
    await put('flows-fail', 'broken', {
      steps: [
        { tool: 'navigate', args: { url: `${site()}/table.html` } },
        {
          id: 'missing',
          tool: 'interact',
          args: { action: 'click', selector: { css: '#no-such-button' }, wait_timeout: 0 },
        },
        { tool: 'navigate', args: { url: `${site()}/login.html` } },
      ],
    });
    const run = await rest(running.url, '/flows/broken/run', {}, ws);
    expect(run.body).toMatchObject({
      status: 'failed',
      steps_run: 2,
      failed: { n: 2, id: 'missing', tool: 'interact', error: { code: 'not_found' }, url: `${site()}/table.html` },
    });
    expect((run.body.failed as { error: { message: string } }).error.message).toContain('#no-such-button');
    expect(run.body.steps).toHaveLength(2);
    await rest(running.url, '/browser/end-browser', {}, ws);
  });

  it('names the page a click led to when the next step fails, and ends on the page its last step left', async () => {
    const ws = { 'X-Workspace': 'flows-moved' };
    const steps = [
      { tool: 'navigate', args: { url: `${site()}/login.html` } },
      { tool: 'interact', args: { action: 'click', selector: { css: '#to-table' } } },
      { tool: 'interact', args: { action: 'click', selector: { css: '#no-such-button' }, wait_timeout: 0 } },
    ];
    await put('flows-moved', 'moved', { steps });
    const failed = await rest(running.url, '/flows/moved/run', {}, ws);
    expect(failed.body).toMatchObject({ status: 'failed', failed: { n: 3, url: `${site()}/table.html` } });
    await put('flows-moved', 'moved-on', { steps: steps.slice(0, 2) });
    const ok = await rest(running.url, '/flows/moved-on/run', {}, ws);
    expect(ok.body).toMatchObject({ status: 'ok', url: `${site()}/table.html`, title: 'Data table' });
    expect((await rest(running.url, '/workspace', undefined, ws)).body).toMatchObject({
      url: `${site()}/table.html`,
      title: 'Data table',
    });
    await rest(running.url, '/browser/end-browser', {}, ws);
  });

  it('types every write, and answers the value read back only where the report shows it', async () => {
    const ws = { 'X-Workspace': 'flows-unread' };
    await put('flows-unread', 'typed', {
      steps: [
        { tool: 'navigate', args: { url: `${site()}/login.html` } },
        { tool: 'write', args: { selector: { css: '#email' }, text: 'first@example.com' } },
        { id: 'typed', tool: 'extract', args: { selector: { css: '#email' }, what: 'value' }, return: true },
        {
          id: 'retyped',
          tool: 'write',
          args: { selector: { css: '#email' }, text: 'second@example.com' },
          return: true,
        },
        { tool: 'interact', args: { action: 'click', selector: { css: '#to-table' } } },
        { tool: 'navigate', args: { action: 'back' } },
        { tool: 'interact', args: { action: 'click', selector: { css: '#to-table' } } },
      ],
    });
    const compact = await rest(running.url, '/flows/typed/run', {}, ws);
    expect(compact.body, JSON.stringify(compact.body)).toMatchObject({
      status: 'ok',
      returned: {
        typed: { value: 'first@example.com' },
        retyped: { value: 'second@example.com', url: `${site()}/login.html` },
      },
      url: `${site()}/table.html`,
      title: 'Data table',
    });
    expect((compact.body.steps as { summary: string }[]).map((s) => s.summary)).toEqual([
      `went to ${site()}/login.html`,
      'typed',
      'read first@example.com',
      'typed',
      expect.stringMatching(/^click /),
      'went back',
      expect.stringMatching(/^click /),
    ]);
    const verbose = await rest(running.url, '/flows/typed/run', { verbose: true }, ws);
    const results = (verbose.body.steps as { result: Record<string, unknown> }[]).map((s) => s.result);
    expect(results[0]).toMatchObject({ url: `${site()}/login.html`, title: 'Login' });
    expect(results[1]).toMatchObject({ value: 'first@example.com', url: `${site()}/login.html` });
    expect(results[4]).toMatchObject({ url: `${site()}/table.html`, title: 'Data table' });
    expect(results[5]).toMatchObject({ url: `${site()}/login.html` });
    await rest(running.url, '/browser/end-browser', {}, ws);
  });

  it('goes on past a sometimes-absent cookie banner with onError: continue', async () => {
    const ws = { 'X-Workspace': 'flows-banner' };
    await put('flows-banner', 'banner', {
      parameters: { type: 'object', properties: { query: { type: 'string', default: '' } } },
      steps: [
        { tool: 'navigate', args: { url: `${site()}/banner.html\${query}` } },
        {
          id: 'accept',
          tool: 'interact',
          args: { action: 'click', selector: { css: '#cookie-accept' }, wait_timeout: 0 },
          onError: 'continue',
        },
        { id: 'title', tool: 'extract', args: { selector: { css: 'title' }, what: 'html' } },
      ],
    });
    const withBanner = await rest(running.url, '/flows/banner/run', { params: { query: '?banner=1' } }, ws);
    const without = await rest(running.url, '/flows/banner/run', {}, ws);
    expect(withBanner.body).toMatchObject({ status: 'ok', steps_run: 3 });
    expect((withBanner.body.steps as { ok: boolean }[]).map((s) => s.ok)).toEqual([true, true, true]);
    expect(without.body).toMatchObject({ status: 'ok', steps_run: 3 });
    expect((without.body.steps as { ok: boolean }[]).map((s) => s.ok)).toEqual([true, false, true]);
    await rest(running.url, '/browser/end-browser', {}, ws);
  });

  it('delivers ${...} and $${...} to execute_script byte for byte', async () => {
    const ws = { 'X-Workspace': 'flows-script' };
    const payload = 'a "quoted" `tick` ${not-a-param} \\ back';
    const saved = await put(
      'flows-script',
      'script',
      `parameters:\n  type: object\n  properties:\n    word: {type: string}\nsteps:\n  - tool: navigate\n    args: {url: "${site()}/login.html"}\n  - tool: execute_script\n    args:\n      script: "const w = arguments[0]; return [\`$\${w}!\`, '$\${word}']"\n      args: ["\${word}"]\n    return: true\n    id: echo\n`,
    );
    expect(saved.status).toBe(200);
    const run = await rest(running.url, '/flows/script/run', { params: { word: payload } }, ws);
    expect(run.body).toMatchObject({ status: 'ok', returned: { echo: { result: [`${payload}!`, '${word}'] } } });
    await rest(running.url, '/browser/end-browser', {}, ws);
  });

  it('saved over HTTP runs over MCP, and saved over MCP runs over HTTP', async () => {
    await put('flows-cross', 'via-http', { steps: [{ tool: 'navigate', args: { url: `${site()}/table.html` } }] });
    const mcp = await connectMcp(running.url, '2026-07-28', { workspace: 'flows-cross' });
    try {
      const viaMcp = await mcp.call('run_flow', { name: 'via-http' });
      expect(viaMcp.structured).toMatchObject({ status: 'ok', title: 'Data table' });
      const saved = await mcp.call('save_flow', {
        name: 'via-mcp',
        document: `steps:\n  - tool: extract\n    args: {selector: {css: h1}}\n`,
      });
      expect(saved.structured).toMatchObject({ name: 'via-mcp', created: true });
      const viaHttp = await rest(running.url, '/flows/via-mcp/run', {}, { 'X-Workspace': 'flows-cross' });
      expect(viaHttp.body).toMatchObject({ status: 'ok', result: { value: 'Data table' } });
      const listed = JSON.parse(await mcp.readResource('flow://flows')) as { flows: { name: string }[] };
      expect(listed.flows.map((f) => f.name)).toEqual(['mine', 'shared', 'via-http', 'via-mcp']);
      const one = JSON.parse(await mcp.readResource('flow://flows/via-mcp')) as { text: string };
      expect(one.text).toContain('tool: extract');
      await mcp.call('end_browser');
    } finally {
      await mcp.close();
    }
  });

  it('reads merge own and global (own wins); agents never write global', async () => {
    await put('flows-libs', 'mine', {
      description: 'own mine',
      steps: [{ tool: 'navigate', args: { action: 'back' } }],
    });
    const listed = await rest(running.url, '/flows?everywhere=true', undefined, { 'X-Workspace': 'flows-libs' });
    expect(listed.body.flows).toEqual([
      expect.objectContaining({ name: 'mine', description: 'own mine', shared: false }),
      expect.objectContaining({ name: 'shared', description: 'from global', shared: true }),
    ]);
    const stateless = await fetch(`${running.url}/flows/x`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"steps":[]}',
    });
    expect(stateless.status).toBe(403);
    expect(JSON.stringify(await stateless.json())).toMatch(/name your workspace.*ask an operator/);
    const global = await put('global', 'x', { steps: [{ tool: 'navigate', args: { action: 'back' } }] });
    expect(global.status).toBe(403);
    const statelessList = await rest(running.url, '/flows?everywhere=true');
    expect((statelessList.body.flows as { name: string }[]).map((f) => f.name)).toEqual(['mine', 'shared']);
  });

  it('that was hand-broken on disk is listed with its problem, refuses to run, and breaks nothing else', async () => {
    const ws = { 'X-Workspace': 'flows-broken' };
    await put('flows-broken', 'fine', { steps: [{ tool: 'navigate', args: { action: 'back' } }] });
    await writeFile(
      join(dataDir, 'flows-broken', 'flows', 'mangled.yaml'),
      'steps:\n  - tool: navigate\n    args: {url: [oops\n',
    );
    // A listing is cached for a moment and a hand edit on disk clears no cache: wait until it shows.
    const mangled = async () => {
      const listed = await rest(running.url, '/flows?everywhere=true', undefined, ws);
      return (listed.body.flows as { name: string; problem?: string }[]).find((f) => f.name === 'mangled');
    };
    await expect.poll(async () => (await mangled())?.problem, { timeout: 10_000 }).toMatch(/not valid YAML/);
    const run = await rest(running.url, '/flows/mangled/run', {}, ws);
    expect(run.status).toBe(400);
    expect(JSON.stringify(run.body)).toMatch(/cannot run.*save_flow/);
    expect((await rest(running.url, '/flows/fine', undefined, ws)).status).toBe(200);
  });

  it('refuses odd names, a huge document and a wrong-typed param with a 4xx that says the fix', async () => {
    const ws = { 'X-Workspace': 'flows-bad' };
    for (const name of ['..%2Fx', '.', 'a%2Fb', 'x'.repeat(65)]) {
      const answer = await put('flows-bad', name, { steps: [{ tool: 'navigate', args: { action: 'back' } }] });
      expect(answer.status, name).toBeGreaterThanOrEqual(400);
      expect(answer.status, name).toBeLessThan(500);
    }
    const huge = {
      description: 'x'.repeat(10),
      steps: Array.from({ length: 200 }, () => ({
        tool: 'execute_script',
        args: { script: `return '${'y'.repeat(2000)}'` },
      })),
    };
    expect((await put('flows-bad', 'huge', huge)).body.error).toMatchObject({
      message: expect.stringMatching(/larger than .* split it/) as string,
    });
    await put('flows-bad', 'typed', {
      parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      steps: [{ tool: 'navigate', args: { action: 'back' } }],
    });
    const wrong = await rest(running.url, '/flows/typed/run', { params: { n: 'three' } }, ws);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({
      message: 'Invalid params: n must be a whole number (got a string); pass a whole number.',
    });
    const stale = await put(
      'flows-bad',
      'typed',
      { steps: [{ tool: 'navigate', args: { action: 'back' } }] },
      { 'If-Match': '"0000000000000000"' },
    );
    expect(stale.status).toBe(409);
    // A stale delete is the same 409 as a stale save (flows/library.ts), and deletes nothing.
    const staleDelete = await fetch(`${running.url}/flows/typed`, {
      method: 'DELETE',
      headers: { 'X-Workspace': 'flows-bad', 'if-match': '"0000000000000000"' },
    });
    expect(staleDelete.status).toBe(409);
    expect(JSON.stringify(await staleDelete.json())).toMatch(/has changed since revision 0000000000000000/);
    expect((await rest(running.url, '/flows/typed', undefined, ws)).status).toBe(200);
  });
});

describe('refused flows, params and bounds, over MCP and HTTP alike', () => {
  it('say the key, the rule and the fix in one sentence, the same on both', async () => {
    const mcp = await connectMcp(running.url, '2026-07-28', { workspace: 'flows-refused' });
    const back = { tool: 'navigate', args: { action: 'back' } };
    const typed = { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] };
    try {
      await tools.ok('save_flow', { name: 'typed', document: { parameters: typed, steps: [back] } });
      const cases: [string, Record<string, unknown>, string | RegExp][] = [
        [
          'save_flow',
          { name: 'refused', document: { steps: Array.from({ length: 201 }, () => back) } },
          'Invalid flow: steps must hold at most 200 steps; split the work into flows of 200 steps or fewer, run one after another.',
        ],
        [
          'save_flow',
          { name: 'refused', document: { steps: [{ tool: 'fly' }] } },
          /^Invalid flow: step 1: unknown tool "fly"; a step may use navigate, [a-z_, ]+\.$/,
        ],
        [
          'save_flow',
          { name: 'refused', document: { steps: [{ tool: 'my password is hunter2' }] } },
          /^Invalid flow: step 1: unknown tool \(a key that is no name\); a step may use navigate, /,
        ],
        [
          'save_flow',
          {
            name: 'refused',
            document: { steps: [{ tool: 'interact', args: { action: 'click', selector: { css: 'a'.repeat(5000) } } }] },
          },
          'Invalid flow: step 1 (interact): selector.css must be at most 4096 characters long (got 5000); pass a shorter selector.css.',
        ],
        [
          'save_flow',
          { name: 'refused', document: { steps: [{ tool: 'navigate', args: { action: 'back', wait: 1 } }] } },
          'Invalid flow: step 1 (navigate): unknown argument "wait"; navigate takes url, action, tab.',
        ],
        [
          'save_flow',
          { name: 'refused', document: { steps: [{ ...back, wait: 1 }] } },
          'Invalid flow: step 1: unknown key "wait"; a step has only tool, args, id, onError, return, note.',
        ],
        [
          'save_flow',
          {
            name: 'refused',
            document: { steps: [back], parameters: { type: 'object', properties: { a: { type: 'text' } } } },
          },
          'Invalid flow: parameters.properties.a.type must be one of "array", "boolean", "integer", "null", "number", "object", "string".',
        ],
        [
          'save_flow',
          { name: 'Bad_Name!', document: { steps: [back] } },
          'Invalid flow name: a flow name is 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit (and not "." or ".."); rename it and call again.',
        ],
        [
          'run_flow',
          { name: 'typed', params: { n: 'three' } },
          'Invalid params: n must be a whole number (got a string); pass a whole number.',
        ],
        [
          'run_flow',
          { name: 'typed', params: { n: 0 } },
          'Invalid params: n must be at least 1 (got 0); pass a larger n.',
        ],
        ['run_flow', { name: 'typed', params: {} }, 'Invalid params: n is required; pass n.'],
        ['draft_flow', { last: 0 }, 'last must be at least 1 (got 0); pass a larger last.'],
        [
          'interact',
          { action: 'click', selector: { css: 'a'.repeat(5000) } },
          'selector.css must be at most 4096 characters long (got 5000); pass a shorter selector.css.',
        ],
      ];
      for (const [tool, args, sentence] of cases) {
        const overHttp = await call(tool, args);
        const said = (overHttp.body.error as { message?: string } | undefined)?.message ?? '';
        expect(overHttp.status, `${tool} ${said}`).toBe(400);
        if (typeof sentence === 'string') {
          expect(said).toBe(sentence);
        } else {
          expect(said).toMatch(sentence);
        }
        expect(said).not.toContain('hunter2');
        const overMcp = await mcp.call(tool, args);
        expect(overMcp.isError, tool).toBe(true);
        expect(overMcp.text, tool).toBe(said);
      }
    } finally {
      await call('delete_flow', { name: 'typed' });
      await mcp.close();
    }
  });
});

describe("a flow's params", () => {
  const FW = {
    parameters: {
      type: 'object',
      properties: { email: { type: 'string' }, nick: { type: 'string' }, unused: { type: 'string' } },
    },
    steps: [
      { tool: 'write', args: { selector: { css: '#password' }, text: '${email}' } },
      { tool: 'write', args: { selector: { css: '#email' }, text: '${email} / ${nick}' } },
    ],
  };

  /** What the login page's fields hold now: what a refused run must have left untouched. */
  async function fields(ws: Record<string, string>) {
    const read = async (css: string) =>
      (await rest(running.url, '/browser/extract', { selector: { css }, what: 'value' }, ws)).body.value;
    return { email: await read('#email'), password: await read('#password') };
  }

  it('refuses a run that leaves a parameter a step reads without a value, before step one', async () => {
    const ws = { 'X-Workspace': 'flows-unset' };
    expect((await put('flows-unset', 'fw', FW)).status).toBe(200);
    await rest(running.url, '/browser/navigate', { url: `${site()}/login.html` }, ws);
    const run = await rest(running.url, '/flows/fw/run', { params: { email: 'a@b.c' } }, ws);
    expect(run).toMatchObject({
      status: 400,
      body: {
        error: { message: 'Parameter nick has no value: pass it in params, or give it a default in the flow.' },
      },
    });
    expect(await fields(ws)).toEqual({ email: '', password: '' });
    // Both given, the same flow runs; a declared parameter no step reads may still go unset.
    const ok = await rest(running.url, '/flows/fw/run', { params: { email: 'a@b.c', nick: 'ada' } }, ws);
    expect(ok.body).toMatchObject({ status: 'ok', steps_run: 2 });
    expect(await fields(ws)).toEqual({ email: 'a@b.c / ada', password: 'a@b.c' });
    await rest(running.url, '/browser/end-browser', {}, ws);
  });

  it('refuses an object or array a step would type as text, mid-string or whole', async () => {
    const ws = { 'X-Workspace': 'flows-object' };
    await put('flows-object', 'typed', {
      parameters: { type: 'object', properties: { data: { type: 'object' }, list: { type: 'array' } } },
      steps: [
        { tool: 'write', args: { selector: { css: '#email' }, text: 'got ${data}' } },
        { tool: 'write', args: { selector: { css: '#password' }, text: '${list}' } },
      ],
    });
    await rest(running.url, '/browser/navigate', { url: `${site()}/login.html` }, ws);
    const object = await rest(running.url, '/flows/typed/run', { params: { data: { a: 1 }, list: ['x'] } }, ws);
    expect(object).toMatchObject({
      status: 400,
      body: {
        error: {
          message:
            'Parameter data is an object, but steps type parameters as text: pass data as a string (JSON-encoded, if that is what the page wants).',
        },
      },
    });
    expect(await fields(ws)).toEqual({ email: '', password: '' });
    await put('flows-object', 'listed', {
      parameters: { type: 'object', properties: { list: { type: 'array' } } },
      steps: [{ tool: 'write', args: { selector: { css: '#password' }, text: '${list}' } }],
    });
    const wholeArray = await rest(running.url, '/flows/listed/run', { params: { list: [1, { b: 2 }] } }, ws);
    expect(wholeArray.body.error).toMatchObject({
      message:
        'Parameter list is an array, but steps type parameters as text: pass list as a string (JSON-encoded, if that is what the page wants).',
    });
    expect(await fields(ws)).toEqual({ email: '', password: '' });
    await rest(running.url, '/browser/end-browser', {}, ws);
  });

  it('refuses an unknown parameter over HTTP, run_flow and as a flow tool, naming the ones it takes', async () => {
    const ws = { 'X-Workspace': 'flows-unknown' };
    await put('flows-unknown', 'fw', FW);
    await rest(running.url, '/browser/navigate', { url: `${site()}/login.html` }, ws);
    const http = await rest(running.url, '/flows/fw/run', { params: { email: 'x', nick: 'y', zzz: '1' } }, ws);
    const takes = 'this flow takes email, nick, unused; pass only those.';
    expect(http).toMatchObject({ status: 400, body: { error: { message: `Unknown parameter zzz: ${takes}` } } });
    const mcp = await connectMcp(running.url, '2026-07-28', { workspace: 'flows-unknown' });
    try {
      const tool = await mcp.call('flow_fw', { email: 'x', nick: 'y', extra: 1 });
      expect(tool.isError).toBe(true);
      expect(tool.text).toContain(`Unknown parameter extra: ${takes}`);
      const runFlow = await mcp.call('run_flow', { name: 'fw', params: { email: 'x', nick: 'y', a: 1, b: 2 } });
      expect(runFlow.isError).toBe(true);
      expect(runFlow.text).toContain(`Unknown parameters a, b: ${takes}`);
    } finally {
      await mcp.close();
    }
    expect(await fields(ws)).toEqual({ email: '', password: '' });
    await put('flows-unknown', 'bare', { steps: [{ tool: 'navigate', args: { action: 'back' } }] });
    const bare = await rest(running.url, '/flows/bare/run', { params: { n: 1 } }, ws);
    expect(bare).toMatchObject({
      status: 400,
      body: { error: { message: 'Unknown parameter n: this flow takes no parameters; run it without params.' } },
    });
    await rest(running.url, '/browser/end-browser', {}, ws);
  });
});
