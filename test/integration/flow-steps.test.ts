import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { rest, startServer, type RunningServer } from '../helpers/server.js';

let running: RunningServer;
const site = () => inject('siteUrl');

beforeAll(async () => {
  running = await startServer({ FLOW_DATA_DIR: await mkdtemp(join(tmpdir(), 'flow-steps-')) });
});
afterAll(async () => {
  await running.close();
});

async function save(workspace: string, name: string, document: object) {
  const response = await fetch(`${running.url}/flows/${name}`, {
    method: 'PUT',
    headers: { 'X-Workspace': workspace, 'content-type': 'application/json' },
    body: JSON.stringify(document),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('sturdier steps', () => {
  it('a step whose first selector is gone passes on its second, and the report says which', async () => {
    const ws = { 'X-Workspace': 'steps-alternatives' };
    // The page was "redesigned": #login-email is what the flow was written against; #email is what is there.
    const saved = await save('steps-alternatives', 'login', {
      parameters: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
      steps: [
        { tool: 'navigate', args: { url: `${site()}/login.html` } },
        {
          id: 'email',
          tool: 'write',
          args: { selector: [{ css: '#login-email' }, { css: '#email' }], text: '${email}', wait_timeout: 1 },
        },
        {
          tool: 'interact',
          args: { action: 'click', selector: [{ xpath: '//button[@id="go"]' }, { css: '#submit' }] },
        },
        { id: 'greeting', tool: 'extract', args: { selector: { css: '#greeting' } }, return: true },
      ],
    });
    expect(saved.status).toBe(200);
    const run = await rest(running.url, '/flows/login/run', { params: { email: 'ada@example.com' } }, ws);
    expect(run.body).toMatchObject({ status: 'ok', returned: { greeting: { value: 'Welcome, ada@example.com' } } });
    const steps = run.body.steps as { n: number; selector_used?: number }[];
    expect(steps.map((s) => s.selector_used)).toEqual([undefined, 1, 1, undefined]);
    await rest(running.url, '/browser/end-browser', {}, ws);
  });

  it('a list where nothing matches fails naming every alternative', async () => {
    const ws = { 'X-Workspace': 'steps-none' };
    await rest(running.url, '/browser/navigate', { url: `${site()}/login.html` }, ws);
    const click = await rest(
      running.url,
      '/browser/interact',
      { action: 'click', selector: [{ css: '#gone' }, { xpath: '//nothing' }], wait_timeout: 0 },
      ws,
    );
    expect(click.status).toBe(404);
    expect((click.body.error as { message: string }).message).toMatch(
      /No element matches any of css=#gone, xpath=\/\/nothing \(waited 0 s\)/,
    );
    await rest(running.url, '/browser/end-browser', {}, ws);
  });

  it('a later step types what an earlier one read, as ${steps.<id>}', async () => {
    const ws = { 'X-Workspace': 'steps-values' };
    const saved = await save('steps-values', 'echo', {
      steps: [
        { tool: 'navigate', args: { url: `${site()}/welcome.html?email=grace@example.com` } },
        { id: 'greeting', tool: 'extract', args: { selector: { css: '#greeting' } } },
        { tool: 'navigate', args: { url: `${site()}/login.html` } },
        { tool: 'write', args: { selector: { css: '#email' }, text: '${steps.greeting}!' } },
        { id: 'typed', tool: 'extract', args: { selector: { css: '#email' }, what: 'value' }, return: true },
      ],
    });
    expect(saved.status).toBe(200);
    const run = await rest(running.url, '/flows/echo/run', {}, ws);
    expect(run.body).toMatchObject({ status: 'ok', returned: { typed: { value: 'Welcome, grace@example.com!' } } });
    await rest(running.url, '/browser/end-browser', {}, ws);
  });

  it('a ${steps.x} naming a later or unknown step is refused at save, naming the fix', async () => {
    const later = await save('steps-bad', 'later', {
      steps: [
        { tool: 'write', args: { selector: { css: '#q' }, text: '${steps.title}' } },
        { id: 'title', tool: 'extract', args: {} },
      ],
    });
    expect(later.status).toBe(400);
    expect((later.body.error as { message: string }).message).toMatch(/runs later.*move it before step 1/);
    const unknown = await save('steps-bad', 'unknown', {
      steps: [{ tool: 'write', args: { selector: { css: '#q' }, text: '${steps.nope}' } }],
    });
    expect(unknown.status).toBe(400);
    expect((unknown.body.error as { message: string }).message).toMatch(/no step has the id "nope"; give the step/);
  });
});
