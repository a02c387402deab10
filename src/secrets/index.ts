import type { EventSink } from '../events/events.js';
import { BindAudit, type AuditLogger } from './audit.js';
import { Secrets } from './binding.js';
import { Catalogue } from './catalogue.js';
import { FilesystemSource } from './filesystem.js';
import { KubernetesSource, serviceAccountMounted } from './kubernetes.js';
import type { SecretSource } from './source.js';

export interface SecretsSettings {
  dirs: readonly string[];
  kubernetes: 'auto' | 'off';
  accountDir: string;
  kubernetesHost: string | undefined;
  kubernetesPort: number | undefined;
  ttlSeconds: number;
}

/** The sources in search order: each SECRETS_DIRS directory, then Kubernetes when mounted. */
export function createSecrets(settings: SecretsSettings, log: AuditLogger, events?: EventSink): Secrets {
  const sources: SecretSource[] = settings.dirs.map((dir) => new FilesystemSource(dir));
  if (settings.kubernetes === 'auto' && serviceAccountMounted(settings.accountDir)) {
    sources.push(
      new KubernetesSource({
        accountDir: settings.accountDir,
        host: settings.kubernetesHost,
        port: settings.kubernetesPort,
      }),
    );
  }
  return new Secrets(new Catalogue(sources, settings.ttlSeconds * 1000), new BindAudit(log, events));
}

export { Secrets, type BindContext, type ReceivingPage, type SecretRef } from './binding.js';
export { SecretCall } from './secret-call.js';
export type { SecretEntry, SecretListing } from './catalogue.js';
export type { AuditLogger, BindEvent } from './audit.js';
export { SECRET_KEY_RULE, SECRET_NAME_RULE, isKeyName, isSecretName } from './names.js';
