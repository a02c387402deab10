import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { z } from 'zod';
import { isKeyName, isSecretName } from './names.js';
import { parseAllowedUrls, UNRESTRICTED } from './origins.js';
import { type ListedSecret, type SecretSource, type SourceListing } from './source.js';

/** The opt-in label: only Secrets carrying it are listed (the selector is hygiene, not a boundary). */
export const EXPOSE_LABEL = 'selenium-flow/expose';
/** Scopes a Secret to one workspace; without it, every workspace sees it. */
export const WORKSPACE_LABEL = 'selenium-flow/workspace';
export const DESCRIPTION_ANNOTATION = 'selenium-flow/description';
/** One origin per line, as in a directory's `_allowed_urls`. */
export const ALLOWED_URLS_ANNOTATION = 'selenium-flow/allowed-urls';

export const DEFAULT_SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface KubernetesOptions {
  /** token, ca.crt and namespace live here */
  accountDir: string;
  host: string | undefined;
  port: number | undefined;
  timeoutMs?: number;
}

/** The Kubernetes API's wire shapes we read: a Secret and a SecretList (core/v1), parsed at this boundary. */
const WireSecret = z.object({
  metadata: z
    .object({
      name: z.string().optional(),
      labels: z.record(z.string(), z.string()).optional(),
      annotations: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  data: z.record(z.string(), z.string()).optional(),
});
type SecretObject = z.infer<typeof WireSecret>;

/** An item that is not a Secret is left out of the list, not a reason to lose the others. */
const WireSecretList = z.object({ items: z.array(WireSecret.optional().catch(undefined)).optional() });

/** On when a service-account mount exists (SECRETS_KUBERNETES=off turns it off). */
export function serviceAccountMounted(accountDir: string): boolean {
  return existsSync(join(accountDir, 'token'));
}

/**
 * Kubernetes Secrets, without an SDK: a bearer token, the cluster CA and HTTPS. Only two
 * requests are ever made, both GET on Secrets in our own namespace: the label-selected list,
 * and one Secret at the moment a value is typed. The token is re-read on every call because
 * the kubelet rotates it underneath a running pod.
 */
export class KubernetesSource implements SecretSource {
  readonly kind = 'kubernetes' as const;

  constructor(private readonly options: KubernetesOptions) {}

  get location(): string {
    return `${this.options.host ?? '(KUBERNETES_SERVICE_HOST unset)'}:${this.options.port ?? 443}`;
  }

  async list(): Promise<SourceListing> {
    let answer: { namespace: string; body: unknown };
    try {
      const selector = encodeURIComponent(`${EXPOSE_LABEL}=true`);
      answer = await this.get((ns) => `/api/v1/namespaces/${ns}/secrets?labelSelector=${selector}`);
    } catch (err) {
      return {
        secrets: [],
        problem: err instanceof KubernetesError ? err.message : 'the Kubernetes API could not be reached',
      };
    }
    // A parse failure is dropped unread: its issues would quote the values.
    const items = WireSecretList.safeParse(answer.body).data?.items ?? [];
    // Key names live only beside the values: project each item at once and keep nothing else.
    const secrets = items
      .map((item) => item && project(item, answer.namespace))
      .filter((s): s is ListedSecret => s !== undefined);
    return { secrets };
  }

  async read(secret: ListedSecret, key: string): Promise<string | undefined> {
    let body: unknown;
    try {
      body = (await this.get((ns) => `/api/v1/namespaces/${ns}/secrets/${encodeURIComponent(secret.name)}`)).body;
    } catch {
      return undefined;
    }
    const item = WireSecret.safeParse(body).data;
    // Withdrawn since the listing (label removed, or moved to another workspace): gone.
    if (
      item?.metadata?.labels?.[EXPOSE_LABEL] !== 'true' ||
      (item.metadata.labels[WORKSPACE_LABEL] ?? null) !== secret.workspace
    ) {
      return undefined;
    }
    const encoded = item.data?.[key];
    return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
  }

  private async get(path: (namespace: string) => string): Promise<{ namespace: string; body: unknown }> {
    const { host, port, accountDir } = this.options;
    if (!host) {
      throw new KubernetesError('KUBERNETES_SERVICE_HOST is not set, so the Kubernetes API cannot be found');
    }
    let token: string;
    let ca: string;
    let namespace: string;
    try {
      [token, ca, namespace] = (await Promise.all(
        ['token', 'ca.crt', 'namespace'].map(async (name) => (await readFile(join(accountDir, name), 'utf8')).trim()),
      )) as [string, string, string];
    } catch {
      throw new KubernetesError('the service account mount (token, ca.crt, namespace) cannot be read');
    }
    const body = await getJson({
      host,
      port: port ?? 443,
      path: path(encodeURIComponent(namespace)),
      token,
      ca,
      timeoutMs: this.options.timeoutMs ?? 5000,
    });
    return { namespace, body };
  }
}

export class KubernetesError extends Error {}

function project(item: SecretObject, namespace: string): ListedSecret | undefined {
  const metadata = item.metadata ?? {};
  const labels = metadata.labels ?? {};
  const annotations = metadata.annotations ?? {};
  if (!metadata.name || !isSecretName(metadata.name) || labels[EXPOSE_LABEL] !== 'true') {
    return undefined;
  }
  const allowedText = annotations[ALLOWED_URLS_ANNOTATION];
  return {
    name: metadata.name,
    keys: Object.keys(item.data ?? {})
      .filter((key) => isKeyName(key) && !key.startsWith('_'))
      .sort(),
    description: annotations[DESCRIPTION_ANNOTATION]?.trim() || null,
    allowed: allowedText === undefined ? UNRESTRICTED : parseAllowedUrls(allowedText),
    workspace: labels[WORKSPACE_LABEL] ?? null,
    location: `${namespace}/${metadata.name}`,
  };
}

interface GetRequest {
  host: string;
  port: number;
  path: string;
  token: string;
  ca: string;
  timeoutMs: number;
}

/** One GET; the token travels in the header and appears in no message. */
function getJson(req: GetRequest): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: req.host,
        port: req.port,
        path: req.path,
        method: 'GET',
        ca: req.ca,
        headers: { authorization: `Bearer ${req.token}`, accept: 'application/json' },
        timeout: req.timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', () => reject(new KubernetesError('the Kubernetes API answer was cut off')));
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          if (status === 404) {
            resolve(null);
            return;
          }
          if (status !== 200) {
            reject(new KubernetesError(refusal(status)));
            return;
          }
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            reject(new KubernetesError('the Kubernetes API answered something that is not JSON'));
          }
        });
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new KubernetesError('the Kubernetes API did not answer in time')));
    outgoing.on('error', (err) =>
      reject(err instanceof KubernetesError ? err : new KubernetesError('the Kubernetes API could not be reached')),
    );
    outgoing.end();
  });
}

function refusal(status: number): string {
  if (status === 401) {
    return 'the Kubernetes API answered 401: the service account token was refused';
  }
  if (status === 403) {
    return 'the Kubernetes API answered 403: the service account may not list Secrets here (it needs get and list on secrets)';
  }
  return `the Kubernetes API answered ${status}`;
}
