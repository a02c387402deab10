import { createServer, type Server } from 'node:https';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/** A Secret as the Kubernetes API stores it (core/v1), values base64 in `data`. */
export interface FakeSecret {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  data: Record<string, string>;
}

export interface FakeKubernetes {
  host: string;
  port: number;
  /** token, ca.crt, namespace: a service-account mount */
  accountDir: string;
  namespace: string;
  secrets: FakeSecret[];
  /** every request, as `METHOD path?query`, with the token it carried */
  requests: { line: string; token: string }[];
  /** the token the API accepts now; the mount's file is what the client sends */
  acceptedToken: string;
  writeToken(token: string): Promise<void>;
  close(): Promise<void>;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/**
 * A local stand-in for the Kubernetes API server speaking its wire format over HTTPS with a
 * certificate made here: SecretList and Secret bodies as documented for core/v1, Status
 * bodies for 401 and 404, and label selectors of the form key=value.
 */
export async function startFakeKubernetes(namespace = 'team'): Promise<FakeKubernetes> {
  const pems = await generate([{ name: 'commonName', value: 'kubernetes' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const accountDir = await mkdtemp(join(tmpdir(), 'sf-serviceaccount-'));
  await writeFile(join(accountDir, 'ca.crt'), pems.cert);
  await writeFile(join(accountDir, 'namespace'), namespace);
  await writeFile(join(accountDir, 'token'), 'token-1\n');
  const fake: Omit<FakeKubernetes, 'host' | 'port' | 'close'> = {
    accountDir,
    namespace,
    secrets: [],
    requests: [],
    acceptedToken: 'token-1',
    writeToken: (token) => writeFile(join(accountDir, 'token'), `${token}\n`),
  };
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    fake.requests.push({ line: `${req.method} ${req.url}`, token });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (token !== fake.acceptedToken) {
      send(401, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
      return;
    }
    const url = new URL(req.url ?? '/', 'https://fake');
    const prefix = `/api/v1/namespaces/${namespace}/secrets`;
    if (req.method === 'GET' && url.pathname === prefix) {
      const selector = url.searchParams.get('labelSelector');
      const [key, value] = selector ? selector.split('=') : [];
      const items = fake.secrets
        .filter((s) => !key || s.labels?.[key] === value)
        .map((s) => secretObject(s, namespace, false));
      send(200, { kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: '48213' }, items });
      return;
    }
    const one = url.pathname.startsWith(`${prefix}/`)
      ? decodeURIComponent(url.pathname.slice(prefix.length + 1))
      : undefined;
    const found = fake.secrets.find((s) => s.name === one);
    if (req.method === 'GET' && found) {
      send(200, secretObject(found, namespace, true));
      return;
    }
    send(404, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `secrets "${one ?? ''}" not found`,
      reason: 'NotFound',
      details: { name: one ?? '', kind: 'secrets' },
      code: 404,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return Object.assign(fake, {
    host: '127.0.0.1',
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** A Secret as the API answers it; in a list, items carry no kind or apiVersion. */
function secretObject(secret: FakeSecret, namespace: string, single: boolean): Record<string, unknown> {
  return {
    ...(single ? { kind: 'Secret', apiVersion: 'v1' } : {}),
    metadata: {
      name: secret.name,
      namespace,
      uid: `0b9c2f3e-${secret.name.length.toString().padStart(4, '0')}-4a7e-9d61-1f0e6c2b8a11`,
      resourceVersion: '48210',
      creationTimestamp: '2026-12-02T09:14:07Z',
      ...(secret.labels ? { labels: secret.labels } : {}),
      ...(secret.annotations ? { annotations: secret.annotations } : {}),
    },
    data: Object.fromEntries(Object.entries(secret.data).map(([k, v]) => [k, b64(v)])),
    type: 'Opaque',
  };
}
