import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import * as schema from '../../src/http/admin/schemas.js';
import { adminClient, messageOf, type AdminClient } from '../helpers/admin.js';
import { plantedLoginFlow, secretsDir } from '../helpers/secrets.js';
import { startGridProxy } from '../helpers/grid-proxy.js';
import { gridHas, gridIdOf, startServer, type RunningServer } from '../helpers/server.js';

const site = inject('siteUrl');
const TOKEN = 'admin-api-bearer-token';
const ADMIN = 'admin-api-admin-token';

/** Planted in the catalogue: no admin answer may ever carry either. */
const PLANTED_PASSWORD = 'PLANTED-pw-4f9c2e81';
const PLANTED_USER = 'planted-user-b7d3a0';

let dataDir: string;
let secrets: string;
let server: RunningServer;
let client: AdminClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'selenium-flow-admin-'));
  secrets = await secretsDir({
    'site-login': {
      username: PLANTED_USER,
      password: PLANTED_PASSWORD,
      _description: 'The fixture site login',
      _allowed_urls: `# only the fixture site\n${new URL(site).origin}\n`,
    },
    anywhere: { token: 'PLANTED-token-unrestricted' },
    'half-bad': { password: 'PLANTED-half-bad', _allowed_urls: `${new URL(site).origin}\n\nnot an origin\n` },
  });
  server = await startServer({
    FLOW_DATA_DIR: dataDir,
    MCP_AUTH_TOKEN: TOKEN,
    ADMIN_TOKEN: ADMIN,
    SECRETS_DIRS: secrets,
  });
  client = adminClient(server.url, ADMIN, TOKEN);
});

afterAll(async () => {
  for (const ws of ['adm-live', 'adm-end', 'adm-secret']) {
    await client.agent(ws, '/browser/end-browser').catch(() => undefined);
  }
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
  await rm(secrets, { recursive: true, force: true });
});

describe('who may call the admin API', () => {
  const paths = ['/admin/api/workspaces', '/admin/api/workspaces/adm-live'];

  it('answers 401 without the admin token, with the bearer token, or with a wrong one', async () => {
    for (const path of paths) {
      for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }, { authorization: 'Bearer wrong' }] as Record<
        string,
        string
      >[]) {
        const answer = await fetch(server.url + path, { headers });
        expect(answer.status, path).toBe(401);
        expect(messageOf(await answer.json())).toContain('ADMIN_TOKEN');
      }
    }
  });

  it('answers 403 to a page of another origin, even with the token', async () => {
    const answer = await fetch(`${server.url}/admin/api/workspaces`, {
      headers: { authorization: `Bearer ${ADMIN}`, origin: 'https://evil.test' },
    });
    expect(answer.status).toBe(403);
    expect(messageOf(await answer.json())).toContain('ALLOWED_ORIGINS');
  });

  it("answers 401 without the one-time admin link's session when no token is set at all", async () => {
    const open = await startServer({});
    try {
      const answer = await fetch(`${open.url}/admin/api/workspaces`);
      expect(answer.status).toBe(401);
      expect(messageOf(await answer.json())).toContain('set ADMIN_TOKEN');
    } finally {
      await open.close();
    }
  });

  it('is closed (403) with TOKENS_FILE and no admin token: no admin link, and no TOKENS_FILE token is an admin', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'admin-closed-'));
    await writeFile(
      join(dir, 'tokens.yaml'),
      'tokens:\n  - name: agent\n    token: only-agent-token-0123456789\n    workspaces: [agent-*]\n',
    );
    const closed = await startServer({ TOKENS_FILE: join(dir, 'tokens.yaml') });
    try {
      expect(closed.server.adminCode).toBeUndefined();
      const answer = await fetch(`${closed.url}/admin/api/workspaces`, {
        headers: { authorization: 'Bearer only-agent-token-0123456789' },
      });
      expect(answer.status).toBe(403);
      expect(messageOf(await answer.json())).toContain('ADMIN_TOKEN');
    } finally {
      await closed.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the workspaces listing and one workspace', () => {
  beforeAll(async () => {
    // A live browser with a page, a screenshot and a file; a library-only workspace; a directory no caller can name.
    expect((await client.agent('adm-live', '/browser/navigate', { url: `${site}/table.html` })).status).toBe(200);
    expect((await client.agent('adm-live', '/browser/screenshot', { save: true, filename: 'shot' })).status).toBe(200);
    expect((await client.agent('adm-live', '/browser/print', { filename: 'kept' })).status).toBe(200);
    await mkdir(join(dataDir, 'adm-library', 'flows'), { recursive: true });
    await writeFile(join(dataDir, 'adm-library', 'flows', 'one.yaml'), 'steps:\n  - tool: navigate\n');
    await mkdir(join(dataDir, 'not a name'), { recursive: true });
  });

  it('lists every workspace with a record or a directory, with state, last page and counts', async () => {
    const { body } = await client.admin('GET', '/admin/api/workspaces', { shape: schema.workspaceList });
    const byName = new Map(body.workspaces.map((w) => [w.name, w]));
    expect(byName.get('adm-live')).toMatchObject({
      state: 'live',
      global: false,
      last_page: { url: `${site}/table.html` },
      counts: { downloads: 0, screenshots: 1, files: 1, flows: 0 },
    });
    expect(Date.parse(byName.get('adm-live')?.last_activity ?? '')).toBeGreaterThan(Date.now() - 120_000);
    expect(byName.get('adm-library')).toMatchObject({ state: 'none', last_page: null, counts: { flows: 1 } });
    expect(body.grid).toBe(true);
  });

  it('lists a row it cannot read with its problem, and the rest whole', async () => {
    const { body } = await client.admin('GET', '/admin/api/workspaces', { shape: schema.workspaceList });
    const bad = body.workspaces.find((w) => w.name === 'not a name');
    expect(bad?.problem).toMatch(/not a valid workspace name.*rename/);
    expect(body.workspaces.find((w) => w.name === 'adm-live')?.problem).toBeUndefined();
  });

  it('answers one workspace with its browser block and its three file sections', async () => {
    const { body } = await client.admin('GET', '/admin/api/workspaces/adm-live', { shape: schema.workspaceDetail });
    const gridId = await gridIdOf(server, 'adm-live');
    expect(body.browser).toMatchObject({ kind: 'chrome', grid_id: gridId, window: { width: 1280, height: 900 } });
    expect(body.browser?.version).toMatch(/^\d+\./);
    expect(body.browser?.node?.availability).toBe('UP');
    expect(body.files.screenshots.map((f) => f.name)).toEqual(['shot.png']);
    expect(body.files.files.map((f) => f.name)).toEqual(['kept.pdf']);
    expect(body.files.browser).toBe(true);
  });

  it('refuses an invalid workspace name with the rule, and an unknown one with a 404', async () => {
    const invalid = await client.admin('GET', `/admin/api/workspaces/${encodeURIComponent('no way')}`);
    expect(invalid.status).toBe(400);
    expect(messageOf(invalid.body)).toContain('A workspace name is');
    const unknown = await client.admin('GET', '/admin/api/workspaces/adm-nobody');
    expect(unknown.status).toBe(404);
    expect(messageOf(unknown.body)).toContain('GET /admin/api/workspaces');
  });

  it('ends a browser: the Grid no longer runs it and the workspace says none', async () => {
    expect((await client.agent('adm-end', '/browser/navigate', { url: `${site}/table.html` })).status).toBe(200);
    const gridId = await gridIdOf(server, 'adm-end');
    const ended = await client.admin('DELETE', '/admin/api/workspaces/adm-end/browser', { shape: schema.browserEnded });
    expect(ended.body).toEqual({ workspace: 'adm-end', ended: true });
    // The Grid's /status follows a DELETE within moments, not at once.
    await vi.waitFor(async () => expect(await gridHas(gridId ?? '')).toBe(false), { timeout: 10_000, interval: 200 });
    const again = await client.admin('DELETE', '/admin/api/workspaces/adm-end/browser', { shape: schema.browserEnded });
    expect(again.body.ended).toBe(false);
    const { body } = await client.admin('GET', '/admin/api/workspaces/adm-end', { shape: schema.workspaceDetail });
    expect(body.state).toBe('none');
    // Nothing of the ended browser is answered as if it ran; what the next one opens as stays.
    expect(body.browser).toMatchObject({ kind: 'chrome', version: null, started: null, grid_id: null, node: null });
    expect(body.last_page?.url).toBe(`${site}/table.html`);
  });

  it('says reaped for a browser the Grid ended behind its back', async () => {
    expect((await client.agent('adm-reaped', '/browser/navigate', { url: `${site}/table.html` })).status).toBe(200);
    const gridId = await gridIdOf(server, 'adm-reaped');
    await server.server.grid.end(gridId ?? '');
    await vi.waitFor(async () => expect(await gridHas(gridId ?? '')).toBe(false), { timeout: 10_000, interval: 200 });
    const { body } = await client.admin('GET', '/admin/api/workspaces', { shape: schema.workspaceList });
    expect(body.workspaces.find((w) => w.name === 'adm-reaped')).toMatchObject({
      state: 'reaped',
      counts: { downloads: null },
    });
  });
});

const PUBLIC_ADMIN_ROUTES = new Set(['/admin/api/session', '/admin/api/sign-in', '/admin/api/sign-in/token']);

describe('the OpenAPI document', () => {
  it('lists every admin route under the tag admin, with its answer schema', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { tags: string[]; security?: unknown; responses: Record<string, unknown> }>>;
    };
    const admin = Object.entries(document.paths).filter(([path]) => path.startsWith('/admin/api/'));
    expect(admin.length).toBeGreaterThanOrEqual(8);
    for (const [path, operations] of admin) {
      for (const operation of Object.values(operations)) {
        expect(operation.tags, path).toEqual(['admin']);
        // The public admin routes: the session exchanges the banner's one-time code, and the OAuth
        // sign-in an authorization code; each is its own proof.
        expect(operation.security, path).toEqual(PUBLIC_ADMIN_ROUTES.has(path) ? [] : [{ admin: [] }]);
      }
    }
    expect(document.paths['/admin/api/session']).toBeDefined();
    expect(JSON.stringify(document.paths['/admin/api/workspaces'])).toContain('last_activity');
  });
});

const LOGIN_FLOW = `# Signs in to the fixture site (a comment the operator wrote)
description: sign in
parameters:
  type: object
  properties:
    user: { type: string, description: who signs in }
    unused: { type: number }
  required: [user]
steps:
  - tool: navigate
    args: { url: "\${site}/login.html" } # where
  - id: who
    tool: write
    args: { selector: { css: "#email" }, text: "\${user}" }
  - id: pass
    tool: write
    args: { selector: { css: "#password" }, secret: { name: site-login, key: password } }
`.replace('${site}', site);

describe('flows through the operator door', () => {
  const globalFlow = '/admin/api/workspaces/global/flows/adm-login';

  it('writes global as written, comments kept, and reads it back with its revision as ETag', async () => {
    const saved = await client.admin('PUT', globalFlow, { yaml: LOGIN_FLOW, shape: schema.flowSaved });
    expect(saved.body).toMatchObject({ name: 'adm-login', library: 'global', created: true });
    const read = await client.admin('GET', globalFlow, { shape: schema.flowDetail });
    expect(read.body.text).toBe(LOGIN_FLOW);
    expect(read.headers.get('etag')).toBe(`"${read.body.revision}"`);
    expect(read.body.shared).toBe(true);
    expect(read.body.outline?.parameters).toEqual([
      { name: 'user', type: 'string', required: true, description: 'who signs in', used_by: [2] },
      { name: 'unused', type: 'number', required: false, description: null, used_by: [] },
    ]);
    expect(read.body.outline?.steps.map((s) => [s.number, s.id, s.tool, s.secret])).toEqual([
      [1, null, 'navigate', null],
      [2, 'who', 'write', null],
      [3, 'pass', 'write', { name: 'site-login', key: 'password' }],
    ]);
    // Agents still cannot write global.
    const agent = await fetch(`${server.url}/flows/adm-login`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'x-workspace': 'global', 'content-type': 'application/yaml' },
      body: LOGIN_FLOW,
    });
    expect(agent.status).toBe(403);
  });

  it('lists own flows then global ones, marking a global one an own flow hides', async () => {
    await client.admin('PUT', '/admin/api/workspaces/adm-flows/flows/adm-login', { yaml: LOGIN_FLOW });
    // A hand edit on disk gone wrong: the operator door refuses to save one, so it is planted.
    await mkdir(join(dataDir, 'adm-flows', 'flows'), { recursive: true });
    await writeFile(join(dataDir, 'adm-flows', 'flows', 'adm-broken.yaml'), 'steps: [');
    const { body } = await client.admin('GET', '/admin/api/workspaces/adm-flows/flows', { shape: schema.flowList });
    expect(body.flows.map((f) => [f.library, f.name, f.shadowed])).toEqual([
      ['adm-flows', 'adm-broken', false],
      ['adm-flows', 'adm-login', false],
      ['global', 'adm-login', true],
    ]);
    expect(body.flows[0]?.steps).toBeNull();
    expect(body.flows[0]?.problem).toContain('not valid YAML');
    expect(body.flows[1]).toMatchObject({ steps: 3, secrets: true, description: 'sign in' });
  });

  it('refuses a stale If-Match with a 409 that says someone else saved, and writes nothing', async () => {
    const path = '/admin/api/workspaces/adm-flows/flows/adm-login';
    const first = await client.admin('GET', path, { shape: schema.flowDetail });
    const edited = LOGIN_FLOW.replace('sign in', 'sign in, edited');
    const ok = await client.admin('PUT', path, {
      yaml: edited,
      headers: { 'if-match': first.headers.get('etag') ?? '' },
    });
    expect(ok.status).toBe(200);
    const stale = await client.admin('PUT', path, {
      yaml: LOGIN_FLOW.replace('sign in', 'a lost edit'),
      headers: { 'if-match': `"${first.body.revision}"` },
    });
    expect(stale.status).toBe(409);
    expect(messageOf(stale.body)).toMatch(/someone else saved it; reload/);
    expect((await client.admin('GET', path, { shape: schema.flowDetail })).body.text).toBe(edited);
  });

  it('refuses a YAML syntax error and an invalid step at their lines', async () => {
    const path = '/admin/api/workspaces/adm-flows/flows/adm-bad';
    const syntax = await client.admin('PUT', path, {
      yaml: 'description: x\nsteps:\n  - tool: navigate\n    args: [\n',
    });
    expect(syntax.status).toBe(400);
    expect((syntax.body as schema.AdminError).error.line).toBeGreaterThanOrEqual(4);
    expect(messageOf(syntax.body)).toContain('not valid YAML');
    const invalid = await client.admin('PUT', path, {
      yaml: '# two comment lines\n# before\nsteps:\n  - tool: navigate\n    args: { url: "https://example.test/" }\n  - tool: no_such_tool\n',
    });
    expect(invalid.status).toBe(400);
    expect((invalid.body as schema.AdminError).error).toMatchObject({ line: 6 });
    expect(messageOf(invalid.body)).toContain('unknown tool');
    expect((await client.admin('GET', path)).status).toBe(404);
  });

  it('shows a stored file it cannot read with its problem and line, instead of failing', async () => {
    const { body } = await client.admin('GET', '/admin/api/workspaces/adm-flows/flows/adm-broken', {
      shape: schema.flowDetail,
    });
    expect(body).toMatchObject({ document: null, outline: null, text: 'steps: [' });
    expect(body.problem).toContain('not valid YAML');
    expect(body.problem_line).toBe(1);
  });

  it('refuses an unknown flow, a bad flow name and a bad workspace name with the remedy', async () => {
    const unknown = await client.admin('GET', '/admin/api/workspaces/adm-flows/flows/nope');
    expect(unknown.status).toBe(404);
    expect(messageOf(unknown.body)).toContain('/admin/api/workspaces/adm-flows/flows lists');
    const badFlow = await client.admin('GET', `/admin/api/workspaces/adm-flows/flows/${encodeURIComponent('a b')}`);
    expect(badFlow.status).toBe(400);
    expect(messageOf(badFlow.body)).toContain('a flow name is');
    const badWorkspace = await client.admin('GET', '/admin/api/workspaces/.hidden/flows');
    expect(badWorkspace.status).toBe(400);
  });

  it('saves under the same rules as an agent: a flow named like a tool is refused, in global too', async () => {
    for (const library of ['adm-flows', 'global']) {
      const named = await client.admin('PUT', `/admin/api/workspaces/${library}/flows/navigate`, { yaml: LOGIN_FLOW });
      expect(named.status, library).toBe(400);
      expect(messageOf(named.body), library).toMatch(/is the name of a tool/);
      expect((await client.admin('GET', `/admin/api/workspaces/${library}/flows/navigate`)).status).toBe(404);
    }
  });

  it('moves a flow to global and back, never over an existing one, and deletes', async () => {
    const own = '/admin/api/workspaces/adm-flows/flows';
    await client.admin('PUT', `${own}/adm-mover`, { yaml: LOGIN_FLOW });
    const moved = await client.admin('POST', `${own}/adm-mover/move`, {
      body: { to: 'global' },
      shape: schema.flowMoved,
    });
    expect(moved.body).toMatchObject({ name: 'adm-mover', from: 'adm-flows', to: 'global' });
    expect((await client.admin('GET', `${own}/adm-mover`)).status).toBe(404);
    expect((await client.admin('GET', '/admin/api/workspaces/global/flows/adm-mover')).body).toMatchObject({
      text: LOGIN_FLOW,
    });
    const clash = await client.admin('POST', '/admin/api/workspaces/adm-flows/flows/adm-login/move', {
      body: { to: 'global' },
    });
    expect(clash.status).toBe(409);
    expect(messageOf(clash.body)).toContain('already has a flow named adm-login');
    const back = await client.admin('POST', '/admin/api/workspaces/global/flows/adm-mover/move', {
      body: { to: 'adm-flows' },
      shape: schema.flowMoved,
    });
    expect(back.body.to).toBe('adm-flows');
    const badBody = await client.admin('POST', `${own}/adm-mover/move`, { body: { where: 'global' } });
    expect(badBody.status).toBe(400);
    const deleted = await client.admin('DELETE', `${own}/adm-mover`, { shape: schema.flowDeleted });
    expect(deleted.body).toEqual({ name: 'adm-mover', library: 'adm-flows', deleted: true });
    expect((await client.admin('DELETE', `${own}/adm-mover`)).status).toBe(404);
  });
});

// The run ends once the welcome page is here: a click's navigation may commit after the click answers.
const LEAK_FLOW = `${plantedLoginFlow(site)}  - tool: assert
    args: { script: "return location.pathname === '/welcome.html'", timeout: 20, message: the welcome page }
`;

describe('the secrets catalogue, and no value anywhere', () => {
  beforeAll(async () => {
    await client.admin('PUT', '/admin/api/workspaces/adm-secret/flows/adm-leak', { yaml: LEAK_FLOW });
    const run = await client.agent('adm-secret', '/flows/adm-leak/run', { params: {} });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    // The password went into the page's URL (the form submits by GET): the run's answer withholds it.
    expect(run.body).toMatchObject({ status: 'ok', url: new URL(site).origin });
  });

  it('answers the cards, where each may be used, rejected lines by number, and the flows that type each', async () => {
    const { body } = await client.admin('GET', '/admin/api/secrets', { shape: schema.secretsAnswer });
    expect(body.enabled).toBe(true);
    const byName = new Map(body.secrets.map((c) => [c.name, c]));
    expect(byName.get('site-login')).toMatchObject({
      description: 'The fixture site login',
      keys: ['password', 'username'],
      where: [new URL(site).origin],
      restricted: true,
      usable: true,
      rejected_lines: [],
      source: 'filesystem',
      workspace: null,
    });
    expect(byName.get('anywhere')).toMatchObject({ where: ['any site'], restricted: false, usable: true });
    expect(byName.get('half-bad')).toMatchObject({ usable: false, rejected_lines: [{ line: 3 }] });
    const uses = byName.get('site-login')?.uses ?? [];
    expect(uses).toContainEqual({
      library: 'adm-secret',
      flow: 'adm-leak',
      shared: false,
      steps: [{ number: 2, id: 'pass', key: 'password' }],
    });
    expect(uses).toContainEqual(expect.objectContaining({ library: 'global', flow: 'adm-login', shared: true }));
    expect(body.undefined).toEqual([
      {
        name: 'no-such-secret',
        uses: [
          { library: 'adm-secret', flow: 'adm-leak', shared: false, steps: [{ number: 3, id: 'ghost', key: 'token' }] },
        ],
      },
    ]);
  });

  it('carries no planted value in any admin answer, the event history and the Grid included', async () => {
    for (const path of [
      '/admin/api/workspaces',
      '/admin/api/workspaces/adm-secret',
      '/admin/api/workspaces/adm-secret/files',
      '/admin/api/workspaces/adm-secret/flows',
      '/admin/api/workspaces/adm-secret/flows/adm-leak',
      '/admin/api/secrets',
      '/admin/api/grid',
      '/openapi.json',
    ]) {
      expect((await client.admin('GET', path)).status, path).toBe(200);
    }
    // The run submitted the password into the page's URL: the workspace's last page is withheld, not shown.
    const detail = await client.admin('GET', '/admin/api/workspaces/adm-secret', { shape: schema.workspaceDetail });
    expect(detail.body.last_page?.url ?? '').not.toContain('welcome');
    const everything = client.seen.join('\n');
    expect(everything.length).toBeGreaterThan(10_000);
    for (const planted of [PLANTED_PASSWORD, PLANTED_USER, 'PLANTED-token-unrestricted', 'PLANTED-half-bad']) {
      expect(everything).not.toContain(planted);
    }
  });
});

describe('the Grid', () => {
  it('answers its nodes, slots and sessions, naming the workspace that holds each, and never a Grid id', async () => {
    expect((await client.agent('adm-live', '/browser/navigate', { url: `${site}/table.html` })).status).toBe(200);
    const { body, text } = await client.admin('GET', '/admin/api/grid', { shape: schema.gridStatus });
    expect(body).toMatchObject({ reachable: true });
    expect(body.browsers).toContain('chrome');
    expect(body.slots).toBeGreaterThanOrEqual(1);
    expect(body.nodes[0]?.availability).toBe('UP');
    const held = body.nodes.flatMap((n) => n.slots.flatMap((s) => (s.session ? [s.session] : [])));
    expect(held.map((s) => s.workspace)).toContain('adm-live');
    expect(body.sessions).toBe(held.length);
    expect(text).not.toContain((await gridIdOf(server, 'adm-live')) ?? 'no id');
    expect(text).not.toMatch(/127\.0\.0\.1:\d+/);
  });
});

describe("a workspace's Files, polled by the admin page", () => {
  it('asks the browser’s node for downloads only near the last call, then answers what it read', async () => {
    const proxy = await startGridProxy(inject('gridUrl'));
    const dir = await mkdtemp(join(tmpdir(), 'selenium-flow-files-idle-'));
    const quiet = await startServer(
      { FLOW_DATA_DIR: dir, MCP_AUTH_TOKEN: 'files-idle-token', ADMIN_TOKEN: 'files-idle-admin' },
      proxy.url,
    );
    const admin = adminClient(quiet.url, 'files-idle-admin', 'files-idle-token');
    const site = inject('siteUrl');
    try {
      expect((await admin.agent('files-idle', '/browser/navigate', { url: `${site}/welcome.html` })).status).toBe(200);
      const gridId = (await gridIdOf(quiet, 'files-idle')) ?? '';
      const asked = () => proxy.requests.filter((r) => r === `GET /session/${gridId}/se/files`).length;
      const read = async () => {
        const answer = await admin.admin('GET', '/admin/api/workspaces/files-idle/files');
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ browser: true, downloads: [] });
      };
      await read();
      const near = asked();
      expect(near).toBeGreaterThan(0);
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        // Past DOWNLOADS_SETTLE_MS after the last call: asked once more, then never while nothing is called.
        vi.setSystemTime(Date.now() + 31_000);
        await read();
        expect(asked()).toBe(near + 1);
        await read();
        expect((await admin.admin('GET', '/admin/api/workspaces/files-idle')).status).toBe(200);
        expect(asked()).toBe(near + 1);
      } finally {
        vi.useRealTimers();
      }
      // The next call may start a download: the node is asked again.
      expect((await admin.agent('files-idle', '/browser/extract', { selector: { css: 'h1' } })).status).toBe(200);
      await read();
      expect(asked()).toBe(near + 2);
    } finally {
      await admin.agent('files-idle', '/browser/end-browser').catch(() => undefined);
      await quiet.close();
      await proxy.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
