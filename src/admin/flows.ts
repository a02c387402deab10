import { z } from 'zod';
import { yaml } from '../lazy.js';
import type { Capability } from '../capabilities/capability.js';
import { BadRequest, Conflict, InvalidFlow, NotFound, SeleniumFlowError, type FlowPlace } from '../errors.js';
import { workspaceOrStdio } from '../workspace/names.js';
import { parseFlow, type FlowDocument } from '../flows/document.js';
import { toYamlText } from '../flows/yaml-text.js';
import { checkFlowName, GLOBAL_LIBRARY } from '../flows/names.js';
import { referencesIn } from '../flows/references.js';
import type { FlowLibraries } from '../flows/library.js';
import { StaleRevision, type FlowStore, type StoredFlow } from '../flows/store.js';
import type {
  FlowDeleted,
  FlowDetail,
  FlowList,
  FlowMoved,
  FlowParameter,
  FlowSaved,
  FlowStepOutline,
  FlowSummary,
} from './schemas.js';

/** A flow refused at a known line of its YAML: the page puts the message there. */
export class FlowRefused extends BadRequest {
  constructor(
    message: string,
    readonly line: number | undefined,
  ) {
    super(message);
  }
}

/**
 * The flow libraries as an operator sees them: any workspace's own and `global`, which only
 * this door writes (agents' saves go through FlowLibraries, which refuses global). Texts are
 * stored exactly as written, so a person's comments survive every save.
 */
export class OperatorFlows {
  constructor(
    private readonly store: FlowStore,
    private readonly capabilities: readonly Capability[],
    /** every write goes through the libraries' one rule set, which tells agents' listings and flow tools */
    private readonly library: FlowLibraries,
  ) {}

  /** A workspace's own flows, then the global ones (a global one its own hides is `shadowed`). */
  async list(rawLibrary: string): Promise<FlowList> {
    const library = checkLibrary(rawLibrary);
    const own = library === GLOBAL_LIBRARY ? [] : await this.summaries(library);
    const ownNames = new Set(own.map((f) => f.name));
    const shared = (await this.summaries(GLOBAL_LIBRARY)).map((f) => ({ ...f, shadowed: ownNames.has(f.name) }));
    return { workspace: library, flows: [...own, ...shared] };
  }

  async get(rawLibrary: string, rawName: string): Promise<FlowDetail> {
    const stored = await this.stored(checkLibrary(rawLibrary), checkFlowName(rawName));
    const base = {
      name: stored.name,
      library: stored.library,
      shared: stored.library === GLOBAL_LIBRARY,
      revision: stored.revision,
      text: stored.text,
    };
    try {
      const document = parseFlow(stored.text, this.capabilities);
      return {
        ...base,
        document: JSON.parse(JSON.stringify(document)) as Record<string, unknown>,
        outline: outlineOf(document),
      };
    } catch (err) {
      const refused = this.refusal(stored.text, err);
      return {
        ...base,
        document: null,
        outline: null,
        problem: refused.message,
        ...(refused.line ? { problem_line: refused.line } : {}),
      };
    }
  }

  /**
   * Saves the text as written, under the library's one rule set (flows/library.ts); here only
   * the words change: a refusal names its line, a stale `ifMatch` says to reload.
   */
  async save(rawLibrary: string, rawName: string, source: unknown, ifMatch: string | undefined): Promise<FlowSaved> {
    const library = checkLibrary(rawLibrary);
    const document = typeof source === 'string' ? source : flowObject.safeParse(source).data;
    if (document === undefined) {
      throw new BadRequest('Send the flow as YAML text (Content-Type: application/yaml) or as a JSON object.');
    }
    try {
      return await this.library.write(library, rawName, document, ifMatch);
    } catch (err) {
      if (err instanceof StaleRevision) {
        throw staleTag(err);
      }
      if (err instanceof BadRequest) {
        throw this.refusal(toYamlText(document), err);
      }
      throw err;
    }
  }

  async delete(rawLibrary: string, rawName: string, ifMatch: string | undefined): Promise<FlowDeleted> {
    const library = checkLibrary(rawLibrary);
    const name = checkFlowName(rawName);
    try {
      if (!(await this.library.erase(library, name, ifMatch))) {
        throw notFound(library, name);
      }
    } catch (err) {
      throw err instanceof StaleRevision ? staleTag(err) : err;
    }
    return { name, library, deleted: true };
  }

  async move(rawLibrary: string, rawName: string, rawTo: string): Promise<FlowMoved> {
    const from = checkLibrary(rawLibrary);
    const to = checkLibrary(rawTo);
    const name = checkFlowName(rawName);
    const moved = await this.library.move(from, to, name);
    if (!moved) {
      throw notFound(from, name);
    }
    return { name, from, to, revision: moved.revision };
  }

  private async summaries(library: string): Promise<FlowSummary[]> {
    const summaries: FlowSummary[] = [];
    for (const name of await this.store.names(library)) {
      const stored = await this.store.get(library, name).catch(() => undefined);
      if (stored) {
        summaries.push(this.summary(stored));
      }
    }
    return summaries;
  }

  private summary(stored: StoredFlow): FlowSummary {
    const base = {
      name: stored.name,
      library: stored.library,
      shared: stored.library === GLOBAL_LIBRARY,
      shadowed: false,
    };
    try {
      const document = parseFlow(stored.text, this.capabilities);
      return {
        ...base,
        ...(document.description === undefined ? {} : { description: document.description }),
        ...(document.urls === undefined ? {} : { urls: document.urls }),
        steps: document.steps.length,
        secrets: document.steps.some((s) => secretOf(s.args) !== null),
      };
    } catch (err) {
      return { ...base, steps: null, secrets: false, problem: this.refusal(stored.text, err).message };
    }
  }

  private async stored(library: string, name: string): Promise<StoredFlow> {
    const stored = await this.store.get(library, name);
    if (!stored) {
      throw notFound(library, name);
    }
    return stored;
  }

  /** The document's refusal, with the line it points at when it carries a place. */
  private refusal(text: string, err: unknown): FlowRefused {
    if (!(err instanceof SeleniumFlowError)) {
      throw err;
    }
    return new FlowRefused(err.message, err instanceof InvalidFlow ? lineOf(text, err.at) : undefined);
  }
}

/** A library the operator names: `global`, or a workspace under the one name rule. */
export function checkLibrary(name: string): string {
  return name === GLOBAL_LIBRARY ? name : workspaceOrStdio(name);
}

/** The library's stale write (the same 409), with the operator's remedy: the page reloads. */
function staleTag({ flow, given, now }: StaleRevision): Conflict {
  const since = now ? `has changed since revision ${given} (now ${now})` : 'has been deleted since you read it';
  return new Conflict(`Flow ${flow} ${since}: someone else saved it; reload it and reapply your change.`);
}

function notFound(library: string, name: string): NotFound {
  return new NotFound(
    `No flow named ${name} in ${library}; GET /admin/api/workspaces/${library}/flows lists what is there.`,
  );
}

/** A flow sent as JSON: any object (the library's rules judge the rest). */
const flowObject = z.record(z.string(), z.unknown());

const secretBinding = z.object({ name: z.string(), key: z.string() });

/** The secret a step types, by name and key (never a value); null: it types none. */
export function secretOf(args: Record<string, unknown>): { name: string; key: string } | null {
  const parsed = secretBinding.safeParse(args.secret);
  return parsed.success ? parsed.data : null;
}

/** Parameters with the steps that read them (the ${name} rule, applied once, here), and the steps. */
function outlineOf(document: FlowDocument): { parameters: FlowParameter[]; steps: FlowStepOutline[] } {
  const properties = document.parameters?.properties ?? {};
  const declared = Object.keys(properties);
  const steps = document.steps.map((step, index) => ({
    number: index + 1,
    id: step.id ?? null,
    tool: step.tool,
    secret: secretOf(step.args),
    parameters: [...referencesIn(step.args)].filter((name) => declared.includes(name)),
    args: step.args,
    note: step.note ?? null,
  }));
  const required = new Set(document.parameters?.required ?? []);
  const parameters = declared.map((name) => {
    const property = properties[name] ?? {};
    const type = property.type;
    return {
      name,
      type: typeof type === 'string' ? type : Array.isArray(type) ? type.join(' | ') : null,
      required: required.has(name),
      description: typeof property.description === 'string' ? property.description : null,
      used_by: steps.filter((s) => s.parameters.includes(name)).map((s) => s.number),
    };
  });
  return { parameters, steps };
}

/**
 * The line a refusal points at: the YAML line the parser named, or the line of the deepest
 * part of the path (a step, a key) found in the parsed YAML's source map.
 */
export function lineOf(text: string, at: FlowPlace | undefined): number | undefined {
  if (!at) {
    return undefined;
  }
  if ('line' in at) {
    return at.line;
  }
  const { path } = at;
  const { LineCounter, parseDocument } = yaml();
  const counter = new LineCounter();
  const document = parseDocument(text, { lineCounter: counter });
  for (let length = path.length; length > 0; length--) {
    const node = document.getIn(path.slice(0, length), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) {
      return counter.linePos(node.range[0]).line;
    }
  }
  return undefined;
}
