import { yaml } from '../lazy.js';
import type { Capability } from '../capabilities/capability.js';
import { BadRequest, Conflict, NotFound, SeleniumFlowError } from '../errors.js';
import { workspaceOrStdio } from '../workspace/names.js';
import { parseFlow, toYamlText, type FlowDocument } from '../flows/document.js';
import { checkFlowName, GLOBAL_LIBRARY } from '../flows/names.js';
import { validatorOf } from '../flows/parameters.js';
import { referencesIn } from '../flows/references.js';
import { asFlowTool, checkToolBudget } from '../flows/tool.js';
import type { FlowStore, StoredFlow } from '../flows/store.js';
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
    /** hears every library an operator's write changed: agents' listings and flow tools follow it */
    private readonly changed: (library: string) => void = () => undefined,
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

  /** Saves the text as written; a stale `ifMatch` is a 409, a refused document names its line. */
  async save(rawLibrary: string, rawName: string, source: unknown, ifMatch: string | undefined): Promise<FlowSaved> {
    const library = checkLibrary(rawLibrary);
    const name = checkFlowName(rawName);
    if (typeof source !== 'string' && (source === null || typeof source !== 'object' || Array.isArray(source))) {
      throw new BadRequest('Send the flow as YAML text (Content-Type: application/yaml) or as a JSON object.');
    }
    const text = toYamlText(source as string | Record<string, unknown>);
    await this.checkBudget(library, name, this.validate(text));
    try {
      const { flow, created } = await this.store.put(library, name, text, ifMatch);
      this.changed(library);
      return { name, library, revision: flow.revision, created };
    } catch (err) {
      if (err instanceof Conflict) {
        const now = (await this.store.get(library, name))?.revision;
        throw staleTag(name, ifMatch ?? '', now);
      }
      throw err;
    }
  }

  async delete(rawLibrary: string, rawName: string, ifMatch: string | undefined): Promise<FlowDeleted> {
    const library = checkLibrary(rawLibrary);
    const name = checkFlowName(rawName);
    const existing = await this.stored(library, name);
    if (ifMatch !== undefined && existing.revision !== ifMatch) {
      throw staleTag(name, ifMatch, existing.revision);
    }
    await this.store.delete(library, name);
    this.changed(library);
    return { name, library, deleted: true };
  }

  /**
   * Written at the destination first, then removed here: a failure between the two leaves the
   * flow in both places, which an operator sees and mends; the other order could lose it.
   */
  async move(rawLibrary: string, rawName: string, rawTo: string): Promise<FlowMoved> {
    const from = checkLibrary(rawLibrary);
    const to = checkLibrary(rawTo);
    const name = checkFlowName(rawName);
    if (from === to) {
      throw new BadRequest(`Flow ${name} is already in ${to}; name another destination (global, or a workspace).`);
    }
    const source = await this.stored(from, name);
    if (await this.store.get(to, name)) {
      throw new Conflict(
        `${to} already has a flow named ${name}; delete or rename that one first, then move this one.`,
      );
    }
    await this.checkBudget(to, name, this.readable(source.text));
    const { flow } = await this.store.put(to, name, source.text);
    await this.store.delete(from, name);
    this.changed(to);
    this.changed(from);
    return { name, from, to, revision: flow.revision };
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
      throw new NotFound(
        `No flow named ${name} in ${library}; GET /admin/api/workspaces/${library}/flows lists what is there.`,
      );
    }
    return stored;
  }

  private validate(text: string): FlowDocument {
    try {
      const document = parseFlow(text, this.capabilities);
      if (document.parameters) {
        validatorOf(document.parameters);
      }
      return document;
    } catch (err) {
      throw this.refusal(text, err);
    }
  }

  /** The document, or undefined when it cannot be read (then it is no tool, and moves as it is). */
  private readable(text: string): FlowDocument | undefined {
    try {
      return parseFlow(text, this.capabilities);
    } catch {
      return undefined;
    }
  }

  /** The flow tools' budget (src/flows/tool.ts), for a document about to be written into `library`. */
  private async checkBudget(library: string, name: string, document: FlowDocument | undefined): Promise<void> {
    if (document) {
      const tool = asFlowTool(name, document, library === GLOBAL_LIBRARY, this.capabilities);
      await checkToolBudget(this.store, this.capabilities, library, tool);
    }
  }

  /** The document's refusal, with the line it points at when the message names a step or a key. */
  private refusal(text: string, err: unknown): FlowRefused {
    if (!(err instanceof SeleniumFlowError)) {
      throw err;
    }
    return new FlowRefused(err.message, lineOf(text, err.message));
  }
}

/** A library the operator names: `global`, or a workspace under the one name rule. */
export function checkLibrary(name: string): string {
  return name === GLOBAL_LIBRARY ? name : workspaceOrStdio(name);
}

function staleTag(name: string, given: string, now: string | undefined): Conflict {
  const since = now ? `has changed since revision ${given} (now ${now})` : 'has been deleted since you read it';
  return new Conflict(`Flow ${name} ${since}: someone else saved it; reload it and reapply your change.`);
}

function secretOf(args: Record<string, unknown>): { name: string; key: string } | null {
  const secret = args.secret as { name?: unknown; key?: unknown } | undefined;
  return secret && typeof secret.name === 'string' && typeof secret.key === 'string'
    ? { name: secret.name, key: secret.key }
    : null;
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
 * The line a refusal points at. The document's refusals name a YAML line ("(line 4)"), a step
 * ("step 3") or a key path ("urls.0:"); the last two are found in the parsed YAML's source map.
 */
export function lineOf(text: string, message: string): number | undefined {
  const yamlLine = /\(line (\d+)\)/.exec(message)?.[1];
  if (yamlLine) {
    return Number(yamlLine);
  }
  const step = /\bstep (\d+)\b/.exec(message)?.[1];
  const key = /^Invalid flow: ([A-Za-z]+(?:\.[\w-]+)*):/.exec(message)?.[1];
  const path: (string | number)[] | undefined = step
    ? ['steps', Number(step) - 1]
    : key && key !== 'the'
      ? key.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part))
      : undefined;
  if (!path) {
    return undefined;
  }
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
