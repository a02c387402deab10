import { z } from 'zod';
import { setting, type Setting } from '../setting.js';

/**
 * Where secrets come from, one entry each of SETTINGS (src/settings.ts spreads them in: --help,
 * the README's table and the config file see them there), kept here with their rules: secret
 * directories, and Kubernetes Secrets through the pod's service account (docs/secrets.md).
 */

export const SECRETS_SETTINGS = {
  secretsDirs: setting({
    env: 'SECRETS_DIRS',
    separator: ':',
    flag: 'secrets-dirs',
    help: 'secret directories, colon-separated like PATH (a secret is a directory, a key a file); first match wins',
    defaultText: 'none',
    schema: z
      .string()
      .optional()
      .transform((value) => (value ?? '').split(':').filter((dir) => dir !== '')),
  }),
  secretsKubernetes: setting({
    env: 'SECRETS_KUBERNETES',
    help: 'auto: list labelled Kubernetes Secrets when a service account is mounted; off: never',
    schema: z.enum(['auto', 'off'], { error: 'must be "auto" or "off"' }).default('auto'),
  }),
  secretsTtl: setting({
    env: 'SECRETS_TTL',
    help: 'seconds the secrets listing (never a value) is cached',
    schema: z.coerce.number().int().min(0).default(10),
  }),
  kubernetesAccountDir: setting({
    env: 'KUBERNETES_SERVICE_ACCOUNT_DIR',
    help: 'where the service account is mounted (token, ca.crt, namespace)',
    schema: z.string().min(1).default('/var/run/secrets/kubernetes.io/serviceaccount'),
  }),
  kubernetesHost: setting({
    env: 'KUBERNETES_SERVICE_HOST',
    help: 'the Kubernetes API host (Kubernetes sets it in every pod)',
    schema: z.string().min(1).optional(),
  }),
  kubernetesPort: setting({
    env: 'KUBERNETES_SERVICE_PORT',
    help: 'the Kubernetes API port (Kubernetes sets it in every pod)',
    schema: z.coerce.number().int().min(1).max(65535).optional(),
  }),
} satisfies Record<string, Setting<unknown>>;
