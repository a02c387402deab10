import { Forbidden, NotFound } from '../errors.js';
import type { BindAudit, BindEvent } from './audit.js';
import type { Catalogue, ResolvedSecret, SecretListing } from './catalogue.js';
import { allows, originOf } from './origins.js';
import { TypedValues } from './taint.js';

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
 * `unverified`: why the browser could not say which page that is; nothing is typed.
 */
export interface ReceivingPage {
  top: string;
  frame: string;
  unverified?: string;
}

/**
 * What typing a value into the page came to. `refused`: nothing stayed in the field (the frame
 * was no longer on the page the leash allowed), with the reason for the audit and the message
 * for the caller. `movedTo`: the value went in, and then the page was on another origin before
 * the call could answer (a page that navigates as it is typed into).
 */
export type TypeOutcome = { typed: true; movedTo?: string } | { typed: false; reason: string; message: string };

/**
 * The secrets system as the call path uses it: list, bind (resolve + leash + audit + a fresh
 * read), and remember what was typed into each browser so every later answer is screened.
 */
export class Secrets {
  readonly typed = new TypedValues();

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
    const { value, event } = await this.prepare(context, ref, page);
    this.audit.record({ ...event, allowed: true });
    return value;
  }

  /**
   * Binds, hands the value to `typer` (the one place it goes: into the page) and audits what
   * came of it. `scope` remembers the value for the browser's life before the page gets it,
   * so whatever the page does with it later is recognised in every answer.
   */
  async type(
    context: BindContext,
    ref: SecretRef,
    page: ReceivingPage,
    scope: string,
    typer: (value: string) => Promise<TypeOutcome>,
  ): Promise<TypeOutcome> {
    const { value, event } = await this.prepare(context, ref, page);
    this.typed.rememberRef(scope, refKey(ref), value);
    let outcome: TypeOutcome;
    try {
      outcome = await typer(value);
    } catch (err) {
      this.audit.record({ ...event, allowed: false, reason: 'typing failed' });
      throw err;
    }
    if (!outcome.typed) {
      this.refuse(
        context,
        { secret: event.secret, key: event.key, origin: event.origin, reason: outcome.reason },
        new Forbidden(outcome.message),
      );
    }
    if (outcome.movedTo !== undefined) {
      this.audit.record({
        ...event,
        origin: outcome.movedTo,
        allowed: false,
        reason: 'page changed origin while typing; its state is withheld',
      });
    } else {
      this.audit.record({ ...event, allowed: true });
    }
    return outcome;
  }

  /**
   * Takes in the values of secrets another replica typed into this browser (named in its
   * workspace record), read fresh from the catalogue, so this process screens for them too.
   * Each is read once per browser; one gone since is skipped (nothing to recognise).
   */
  async adopt(workspace: string | undefined, scope: string, refs: readonly SecretRef[]): Promise<void> {
    for (const ref of refs) {
      if (this.typed.knows(scope, refKey(ref))) {
        continue;
      }
      const resolved = await this.catalogue.resolve(workspace, ref.name);
      const value =
        resolved && resolved.entry.keys.includes(ref.key) ? await this.catalogue.read(resolved, ref.key) : undefined;
      if (value !== undefined) {
        this.typed.rememberRef(scope, refKey(ref), value);
      }
    }
  }

  /** Resolve, leash, and a fresh read of the value; refusals are audited here, the outcome by the caller. */
  private async prepare(
    context: BindContext,
    ref: SecretRef,
    page: ReceivingPage,
  ): Promise<{ value: string; event: Omit<BindEvent, 'allowed'> }> {
    const origin = originOf(page.frame);
    const topOrigin = originOf(page.top);
    const { resolved, key } = await this.resolveUsable(context, ref, origin);
    const { entry } = resolved;
    if (page.unverified !== undefined) {
      return this.refuse(
        context,
        { secret: entry.name, key, origin, reason: 'receiving page not verifiable' },
        new Forbidden(
          `Secret "${entry.name}" is typed only where the browser itself says which page receives it, and ${page.unverified}; nothing was typed. Type it with Chromium on a Selenium Grid (which passes DevTools commands through), or with Firefox.`,
        ),
      );
    }
    const allowedFrame = allows(resolved.listed.allowed, origin);
    if (!allowedFrame || !allows(resolved.listed.allowed, topOrigin)) {
      const where = allowedFrame
        ? `the page around this frame is on ${topOrigin}`
        : `the page that would receive it is on ${origin}`;
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
        new NotFound(
          `Secret "${entry.name}" key "${key}" cannot be read now (removed, or its source is unreachable); call list_secrets to see what is there.`,
        ),
      );
    }
    return { value, event: { ...who(context), secret: entry.name, key, origin } };
  }

  /** The secret and key from one snapshot, usable; every refusal audited and thrown. */
  private async resolveUsable(
    context: BindContext,
    ref: SecretRef,
    origin: string,
  ): Promise<{ resolved: ResolvedSecret; key: string }> {
    if (!this.catalogue.enabled) {
      return this.refuse(
        context,
        { secret: null, key: null, origin, reason: 'no secret sources' },
        new NotFound(
          'This server has no secrets configured (SECRETS_DIRS, or a Kubernetes service account); ask its operator, or type text.',
        ),
      );
    }
    const resolved = await this.catalogue.resolve(context.workspace, ref.name);
    if (!resolved) {
      // The audit names what the catalogue holds, never what a caller asked for.
      return this.refuse(
        context,
        { secret: null, key: null, origin, reason: 'no such secret' },
        new NotFound(
          `No secret "${ref.name}" for this workspace; call list_secrets for the secrets and keys you may use.`,
        ),
      );
    }
    const { entry } = resolved;
    const key = entry.keys.find((k) => k === ref.key);
    if (key === undefined) {
      return this.refuse(
        context,
        { secret: entry.name, key: null, origin, reason: 'no such key' },
        new NotFound(
          `Secret "${entry.name}" has no key "${ref.key}"; its keys are ${entry.keys.join(', ') || 'none'} (see list_secrets).`,
        ),
      );
    }
    if (!entry.usable) {
      return this.refuse(
        context,
        { secret: entry.name, key, origin, reason: 'unusable declaration' },
        new Forbidden(
          `Secret "${entry.name}" cannot be used: ${entry.problem ?? 'its declaration is unusable'} (list_secrets shows which line).`,
        ),
      );
    }
    return { resolved, key };
  }

  private refuse(
    context: BindContext,
    event: Pick<BindEvent, 'secret' | 'key' | 'origin' | 'reason'>,
    error: Error,
  ): never {
    this.audit.record({ ...who(context), ...event, allowed: false });
    throw error;
  }
}

function refKey(ref: SecretRef): string {
  return `${ref.name}\u0000${ref.key}`;
}

function who(context: BindContext): Pick<BindEvent, 'workspace' | 'flow' | 'step'> {
  return { workspace: context.workspace ?? null, flow: context.flow ?? null, step: context.step ?? null };
}
