import { NotFound, SeleniumFlowError } from '../errors.js';
import type { BindContext, ReceivingPage, SecretRef, Secrets, TypeOutcome } from './binding.js';
import type { SecretListing } from './catalogue.js';
import { originOf } from './origins.js';
import { carries, screenFor } from './taint.js';

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
