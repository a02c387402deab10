import { Forbidden, NotFound } from '../errors.js';
import type { BindAudit, BindEvent } from './audit.js';
import type { Catalogue, ResolvedSecret, SecretListing } from './catalogue.js';
import { allows, originOf } from './origins.js';
import { carries, TaintedPages } from './taint.js';

export interface SecretRef {
  name: string;
  key: string;
}

/** Who binds: for the audit line. `flow` and `step` when the call is a step of a flow. */
export interface BindContext {
  workspace: string | undefined;
  flow?: string;
  step?: number | string;
}

/**
 * The page about to receive the keystrokes: the top-level page, and the document of the
 * frame the element is in (the same when there is no frame). Both must be allowed.
 */
export interface ReceivingPage {
  top: string;
  frame: string;
}

/**
 * The secrets system as the call path uses it: list, bind (resolve + leash + audit + a fresh
 * read), and remember which pages carried a typed value.
 */
export class Secrets {
  readonly taints = new TaintedPages();

  constructor(
    readonly catalogue: Catalogue,
    readonly audit: BindAudit,
  ) {}

  list(workspace: string | undefined): Promise<SecretListing> {
    return this.catalogue.list(workspace);
  }

  /**
   * Whether the secret and key exist and may be used at all, before any waiting for a field:
   * a flow naming a secret that is gone fails at its step with that, not with a selector error.
   */
  async check(context: BindContext, ref: SecretRef, page: ReceivingPage): Promise<void> {
    await this.resolveUsable(context, ref, originOf(page.frame));
  }

  /**
   * The value of one key, for one keystroke sequence, after the leash allowed the page.
   * Every outcome is audited; nothing here ever puts the value in a message.
   */
  async bind(context: BindContext, ref: SecretRef, page: ReceivingPage): Promise<string> {
    const origin = originOf(page.frame);
    const topOrigin = originOf(page.top);
    const { resolved, key } = await this.resolveUsable(context, ref, origin);
    const { entry } = resolved;
    const allowedFrame = allows(resolved.listed.allowed, origin);
    if (!allowedFrame || !allows(resolved.listed.allowed, topOrigin)) {
      const where = allowedFrame ? `the page around this frame is on ${topOrigin}` : `the page that would receive it is on ${origin}`;
      return this.refuse(
        context,
        { secret: entry.name, key, origin, reason: 'origin not allowed' },
        new Forbidden(
          `Secret "${entry.name}" may only be typed on ${entry.allowed_urls.join(', ')}, and ${where}; nothing was typed. Navigate to an allowed page first (list_secrets shows where each secret may be used).`,
        ),
      );
    }
    const value = await this.catalogue.read(resolved, key);
    if (value === undefined) {
      return this.refuse(
        context,
        { secret: entry.name, key, origin, reason: 'value unreadable' },
        new NotFound(`Secret "${entry.name}" key "${key}" cannot be read now (removed, or its source is unreachable); call list_secrets to see what is there.`),
      );
    }
    this.audit.record({ ...who(context), secret: entry.name, key, origin, allowed: true });
    return value;
  }

  /** The secret and key from one snapshot, usable; every refusal audited and thrown. */
  private async resolveUsable(context: BindContext, ref: SecretRef, origin: string): Promise<{ resolved: ResolvedSecret; key: string }> {
    if (!this.catalogue.enabled) {
      return this.refuse(
        context,
        { secret: null, key: null, origin, reason: 'no secret sources' },
        new NotFound('This server has no secrets configured (SECRETS_DIRS, or a Kubernetes service account); ask its operator, or type text.'),
      );
    }
    const resolved = await this.catalogue.resolve(context.workspace, ref.name);
    if (!resolved) {
      // The audit names what the catalogue holds, never what a caller asked for.
      return this.refuse(
        context,
        { secret: null, key: null, origin, reason: 'no such secret' },
        new NotFound(`No secret "${ref.name}" for this workspace; call list_secrets for the secrets and keys you may use.`),
      );
    }
    const { entry } = resolved;
    const key = entry.keys.find((k) => k === ref.key);
    if (key === undefined) {
      return this.refuse(
        context,
        { secret: entry.name, key: null, origin, reason: 'no such key' },
        new NotFound(`Secret "${entry.name}" has no key "${ref.key}"; its keys are ${entry.keys.join(', ') || 'none'} (see list_secrets).`),
      );
    }
    if (!entry.usable) {
      return this.refuse(
        context,
        { secret: entry.name, key, origin, reason: 'unusable declaration' },
        new Forbidden(`Secret "${entry.name}" cannot be used: ${entry.problem ?? 'its declaration is unusable'} (list_secrets shows which line).`),
      );
    }
    return { resolved, key };
  }

  private refuse(context: BindContext, event: Pick<BindEvent, 'secret' | 'key' | 'origin' | 'reason'>, error: Error): never {
    this.audit.record({ ...who(context), ...event, allowed: false });
    throw error;
  }
}

function who(context: BindContext): Pick<BindEvent, 'workspace' | 'flow' | 'step'> {
  return { workspace: context.workspace ?? null, flow: context.flow ?? null, step: context.step ?? null };
}

/** A page state or a result, as much of it as may be shown. */
export interface PageText {
  url?: unknown;
  title?: unknown;
}

/**
 * One call's view of the secrets: it binds with the call's context, holds the values it
 * typed until the call ends (so the page they may have landed in can be withheld), and
 * forgets them with `end`.
 */
export class SecretCall {
  private typed: string[] = [];

  constructor(
    private readonly secrets: Secrets | undefined,
    private readonly context: BindContext,
    /** the workspace or browser the call drives, for remembering tainted pages */
    private readonly scope: string | undefined,
  ) {}

  async list(): Promise<SecretListing> {
    return this.secrets ? this.secrets.list(this.context.workspace) : { secrets: [], sources: [] };
  }

  async check(ref: SecretRef, page: ReceivingPage): Promise<void> {
    if (!this.secrets) {
      throw new NotFound('This server has no secrets configured (SECRETS_DIRS, or a Kubernetes service account); ask its operator, or type text.');
    }
    await this.secrets.check(this.context, ref, page);
  }

  async use(ref: SecretRef, page: ReceivingPage): Promise<string> {
    if (!this.secrets) {
      throw new NotFound('This server has no secrets configured (SECRETS_DIRS, or a Kubernetes service account); ask its operator, or type text.');
    }
    const value = await this.secrets.bind(this.context, ref, page);
    this.typed.push(value);
    return value;
  }

  /**
   * The page's url and title, or only its origin when either carries a value this call typed,
   * or belongs to a page that was found carrying one earlier.
   */
  screen<T extends PageText>(page: T): { shown: T; withheld: boolean } {
    const url = typeof page.url === 'string' ? page.url : '';
    const title = typeof page.title === 'string' ? page.title : '';
    if (!this.secrets || (url === '' && title === '')) {
      return { shown: page, withheld: false };
    }
    const taints = this.secrets.taints;
    const scope = this.scope ?? 'stateless';
    if (carries(url, this.typed) || carries(title, this.typed)) {
      taints.remember(scope, url);
      taints.remember(scope, title);
    } else if (!taints.has(scope, url) && !taints.has(scope, title)) {
      return { shown: page, withheld: false };
    }
    const origin = originOf(url);
    return { shown: { ...page, ...(typeof page.url === 'string' ? { url: origin === 'null' ? '' : origin } : {}), ...(typeof page.title === 'string' ? { title: '' } : {}) }, withheld: true };
  }

  end(): void {
    this.typed = [];
  }
}
