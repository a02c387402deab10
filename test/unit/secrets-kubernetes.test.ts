import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NotFound } from '../../src/errors.js';
import { BindAudit } from '../../src/secrets/audit.js';
import { Secrets } from '../../src/secrets/binding.js';
import { Catalogue } from '../../src/secrets/catalogue.js';
import { createSecrets } from '../../src/secrets/index.js';
import { KubernetesSource } from '../../src/secrets/kubernetes.js';
import { capturingLogger } from '../helpers/secrets.js';
import { startFakeKubernetes, type FakeKubernetes } from '../helpers/fake-kubernetes.js';

const PAGE = { top: 'https://cloud.example.com/login', frame: 'https://cloud.example.com/login' };
const EXPOSED = { 'selenium-flow/expose': 'true' };

let api: FakeKubernetes;
beforeAll(async () => {
  api = await startFakeKubernetes();
});
afterAll(async () => {
  await api.close();
});
beforeEach(async () => {
  api.requests.length = 0;
  api.acceptedToken = 'token-1';
  await api.writeToken('token-1');
  api.secrets = [
    {
      name: 'cloud-admin',
      labels: EXPOSED,
      annotations: {
        'selenium-flow/description': 'Admin of the cloud',
        'selenium-flow/allowed-urls': 'https://cloud.example.com\n',
      },
      data: { username: 'admin', password: 'kube-pw-1' },
    },
    {
      name: 'research-token',
      labels: { ...EXPOSED, 'selenium-flow/workspace': 'research' },
      data: { token: 'research-value' },
    },
    { name: 'database', labels: { app: 'db' }, data: { password: 'db-value-never-listed' } },
  ];
});

function secretsOver(ttlMs = 0) {
  const log = capturingLogger();
  const source = new KubernetesSource({ accountDir: api.accountDir, host: api.host, port: api.port });
  return { secrets: new Secrets(new Catalogue([source], ttlMs), new BindAudit(log)), log };
}

describe('the Kubernetes source', () => {
  it('lists labelled Secrets by name and key, with annotations, and no value anywhere', async () => {
    const { secrets } = secretsOver();
    const listing = await secrets.list(undefined);
    expect(listing.secrets).toEqual([
      {
        name: 'cloud-admin',
        keys: ['password', 'username'],
        description: 'Admin of the cloud',
        allowed_urls: ['https://cloud.example.com'],
        restricted: true,
        usable: true,
        source: 'kubernetes',
        location: 'team/cloud-admin',
        workspace: null,
      },
    ]);
    expect(JSON.stringify(listing)).not.toMatch(/kube-pw-1|a3ViZS1wdy0x|db-value|database/);
    expect(api.requests.map((r) => r.line)).toEqual([
      'GET /api/v1/namespaces/team/secrets?labelSelector=selenium-flow%2Fexpose%3Dtrue',
    ]);
  });

  it('shows a workspace-labelled Secret to that workspace only', async () => {
    const { secrets } = secretsOver();
    expect((await secrets.list('research')).secrets.map((s) => [s.name, s.workspace])).toEqual([
      ['cloud-admin', null],
      ['research-token', 'research'],
    ]);
    expect((await secrets.list('other')).secrets.map((s) => s.name)).toEqual(['cloud-admin']);
    await expect(secrets.bind({ workspace: 'other' }, { name: 'research-token', key: 'token' }, PAGE)).rejects.toThrow(
      NotFound,
    );
    expect(await secrets.bind({ workspace: 'research' }, { name: 'research-token', key: 'token' }, PAGE)).toBe(
      'research-value',
    );
  });

  it('fetches one value fresh at typing time, so a rotated value is the one typed', async () => {
    const { secrets } = secretsOver(60_000);
    const ref = { name: 'cloud-admin', key: 'password' };
    expect(await secrets.bind({ workspace: undefined }, ref, PAGE)).toBe('kube-pw-1');
    api.secrets[0]!.data.password = 'kube-pw-2';
    expect(await secrets.bind({ workspace: undefined }, ref, PAGE)).toBe('kube-pw-2');
    expect(api.requests.map((r) => r.line)).toEqual([
      'GET /api/v1/namespaces/team/secrets?labelSelector=selenium-flow%2Fexpose%3Dtrue',
      'GET /api/v1/namespaces/team/secrets/cloud-admin',
      'GET /api/v1/namespaces/team/secrets/cloud-admin',
    ]);
  });

  it('re-reads the token on every call, so a rotated token keeps working', async () => {
    const { secrets } = secretsOver();
    expect((await secrets.list(undefined)).secrets).toHaveLength(1);
    api.acceptedToken = 'token-2';
    await api.writeToken('token-2');
    const listing = await secrets.list(undefined);
    expect(listing.sources[0]?.problem).toBeUndefined();
    expect(listing.secrets).toHaveLength(1);
    expect(api.requests.map((r) => r.token)).toEqual(['token-1', 'token-2']);
  });

  it('answers a 401 with an empty source that says why, and a bind then fails as not found', async () => {
    api.acceptedToken = 'a-token-we-do-not-have';
    const { secrets, log } = secretsOver();
    const listing = await secrets.list(undefined);
    expect(listing).toEqual({
      secrets: [],
      sources: [
        {
          source: 'kubernetes',
          location: `${api.host}:${api.port}`,
          problem: 'the Kubernetes API answered 401: the service account token was refused',
        },
      ],
    });
    expect(JSON.stringify(listing)).not.toContain('token-1');
    await expect(
      secrets.bind({ workspace: undefined }, { name: 'cloud-admin', key: 'password' }, PAGE),
    ).rejects.toThrow(/list_secrets/);
    expect(log.lines.map((l) => l.level)).toEqual(['warn']);
  });

  it('refuses to type a Secret whose label was removed since it was listed', async () => {
    const { secrets } = secretsOver(60_000);
    await secrets.list(undefined);
    api.secrets[0]!.labels = {};
    await expect(
      secrets.bind({ workspace: undefined }, { name: 'cloud-admin', key: 'password' }, PAGE),
    ).rejects.toThrow(/cannot be read now/);
  });

  it('only ever asks the API to GET Secrets in its namespace', async () => {
    const { secrets } = secretsOver();
    await secrets.list('research');
    await secrets
      .bind({ workspace: 'research' }, { name: 'research-token', key: 'token' }, PAGE)
      .catch(() => undefined);
    await secrets
      .bind(
        { workspace: undefined },
        { name: 'cloud-admin', key: 'password' },
        { top: 'https://evil.test/', frame: 'https://evil.test/' },
      )
      .catch(() => undefined);
    await secrets.bind({ workspace: undefined }, { name: 'cloud-admin', key: 'password' }, PAGE);
    expect(api.requests.length).toBeGreaterThan(2);
    for (const { line } of api.requests) {
      expect(line).toMatch(
        /^GET \/api\/v1\/namespaces\/team\/secrets(\?labelSelector=selenium-flow%2Fexpose%3Dtrue|\/[a-z0-9.-]+)$/,
      );
    }
  });

  it('is on when a service account is mounted, unless SECRETS_KUBERNETES is off', async () => {
    const settings = { dirs: [], kubernetesHost: api.host, kubernetesPort: api.port, ttlSeconds: 0 };
    const on = createSecrets({ ...settings, kubernetes: 'auto', accountDir: api.accountDir }, capturingLogger());
    expect(on.catalogue.sources.map((s) => s.kind)).toEqual(['kubernetes']);
    const off = createSecrets({ ...settings, kubernetes: 'off', accountDir: api.accountDir }, capturingLogger());
    expect(off.catalogue.sources).toEqual([]);
    const unmounted = createSecrets(
      { ...settings, kubernetes: 'auto', accountDir: await mkdtemp(join(tmpdir(), 'sf-none-')) },
      capturingLogger(),
    );
    expect(unmounted.catalogue.sources).toEqual([]);
  });
});
