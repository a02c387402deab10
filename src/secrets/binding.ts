import { Forbidden, NotFound, SeleniumFlowError } from '../errors.js';
import type { BindAudit, BindEvent } from './audit.js';
import type { Catalogue, ResolvedSecret, SecretListing } from './catalogue.js';
import { allows, originOf } from './origins.js';
import { carries, screenFor, TypedValues } from './taint.js';

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

/** A page state or a result, as much of it as may be shown. */
export interface PageText {
  url?: unknown;
  title?: unknown;
}

export const CARRIED =
  'a value this server typed as a secret into this browser was in it: those parts are blanked (an address keeps only its origin)';
/** A capture refused because the page shows a typed value outside the field it went into. */
export const SHOWN_ELSEWHERE =
  'the page shows a value typed as a secret into this browser outside the field it went into, so nothing was captured: leave that page (or clear what shows it) first';
const MOVED = 'the page changed origin while a secret was being typed: its address and title are not shown';

/**
 * One call's view of the secrets: it binds with the call's context and screens what the call
 * answers against every value typed into this browser (its scope) so far.
 */
export class SecretCall {
  /** the page moved to another origin while this call typed: its state is not shown */
  private moved = false;
  /** what this call typed, to be named in the workspace record */
  private typedRefs: SecretRef[] = [];

  constructor(
    private readonly secrets: Secrets | undefined,
    private readonly context: BindContext,
    /** the workspace or browser the call drives: what was typed there is screened */
    private readonly scope: string | undefined,
  ) {}

  async list(): Promise<SecretListing> {
    return this.secrets ? this.secrets.list(this.context.workspace) : { secrets: [], sources: [] };
  }

  async check(ref: SecretRef, page: ReceivingPage): Promise<void> {
    await this.configured().check(this.context, ref, page);
  }

  async type(
    ref: SecretRef,
    page: ReceivingPage,
    typer: (value: string) => Promise<TypeOutcome>,
  ): Promise<TypeOutcome> {
    const outcome = await this.configured().type(this.context, ref, page, this.scopeKey(), typer);
    this.typedRefs.push({ name: ref.name, key: ref.key });
    if (outcome.typed && outcome.movedTo !== undefined) {
      this.moved = true;
    }
    return outcome;
  }

  /**
   * A workspace record shared by replicas: take in what the others typed into its browser
   * (before the call answers anything), and name what this call typed (before it is written).
   */
  async adopt(record: { typedSecrets?: SecretRef[] } | undefined): Promise<void> {
    if (this.secrets && record?.typedSecrets?.length) {
      await this.secrets.adopt(this.context.workspace, this.scopeKey(), record.typedSecrets);
    }
  }

  noteIn(record: { typedSecrets?: SecretRef[] } | undefined): void {
    if (!record || this.typedRefs.length === 0) {
      return;
    }
    const named = record.typedSecrets ?? [];
    for (const ref of this.typedRefs) {
      if (!named.some((r) => r.name === ref.name && r.key === ref.key) && named.length < 32) {
        named.push(ref);
      }
    }
    record.typedSecrets = named;
  }

  /** Whether a text carries a value typed into this browser (for a reader that cuts text after). */
  carries(text: string): boolean {
    return carries(text, this.values());
  }

  typedHere(): boolean {
    return this.values().length > 0;
  }

  forgetBrowser(): void {
    this.secrets?.typed.forget(this.scopeKey());
  }

  /**
   * The page's url and title, or only its origin when either carries a typed value (or the
   * page moved while this call typed).
   */
  screen<T extends PageText>(page: T): { shown: T; withheld: boolean } {
    const url = typeof page.url === 'string' ? page.url : '';
    const title = typeof page.title === 'string' ? page.title : '';
    const values = this.values();
    if (!this.moved && !carries(url, values) && !carries(title, values)) {
      return { shown: page, withheld: false };
    }
    return {
      shown: {
        ...page,
        ...(typeof page.url === 'string' ? { url: originShown(url) } : {}),
        ...(typeof page.title === 'string' ? { title: '' } : {}),
      },
      withheld: true,
    };
  }

  /**
   * Every string of an answer (keys too), at any depth, screened: one that carries a typed
   * value is blanked (a url keeps its origin), and the answer says so. `pageWithheld`: the
   * page state in it was already screened and withheld.
   */
  screenAnswer(answer: Record<string, unknown>, pageWithheld = false): Record<string, unknown> {
    const values = this.values();
    const carriesValue = screenFor(values);
    let hits = 0;
    const walk = (node: unknown, key?: string): unknown => {
      if (typeof node === 'string') {
        if (!carriesValue(node)) {
          return node;
        }
        hits += 1;
        return key === 'url' ? originShown(node) : '';
      }
      if (Array.isArray(node)) {
        return node.map((item) => walk(item));
      }
      if (node !== null && typeof node === 'object') {
        return Object.fromEntries(
          Object.entries(node).map(([k, v], i) => {
            if (carriesValue(k)) {
              hits += 1;
              return [`withheld-${i}`, null];
            }
            return [k, walk(v, k)];
          }),
        );
      }
      return node;
    };
    const shown = values.length === 0 ? answer : (walk(answer) as Record<string, unknown>);
    const reasons = [
      pageWithheld && this.moved ? MOVED : '',
      hits > 0 || (pageWithheld && !this.moved) ? CARRIED : '',
    ].filter(Boolean);
    return reasons.length === 0 ? shown : { ...shown, withheld: true, withheld_reason: reasons.join('; ') };
  }

  /** An error whose message carries a typed value says so instead of quoting it. */
  screenError(err: unknown): unknown {
    if (!(err instanceof Error) || !carries(err.message, this.values())) {
      return err;
    }
    const message =
      'The answer to this call carried a value typed as a secret into this browser, so it is withheld; read the page another way (outline, or extract a narrower selector).';
    if (err instanceof SeleniumFlowError) {
      const Screened = err.constructor as new (message: string) => SeleniumFlowError;
      return new Screened(message);
    }
    return new Error(message);
  }

  end(): void {
    this.moved = false;
    this.typedRefs = [];
  }

  private values(): readonly string[] {
    return this.secrets ? this.secrets.typed.of(this.scopeKey()) : [];
  }

  private scopeKey(): string {
    return this.scope ?? 'stateless';
  }

  private configured(): Secrets {
    if (!this.secrets) {
      throw new NotFound(
        'This server has no secrets configured (SECRETS_DIRS, or a Kubernetes service account); ask its operator, or type text.',
      );
    }
    return this.secrets;
  }
}

/** A url as an answer may show it once it carried a typed value: its origin, or nothing. */
export function originShown(url: string): string {
  const origin = originOf(url);
  return origin === 'null' ? '' : origin;
}
