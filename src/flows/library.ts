import type { Capability } from '../capabilities/capability.js';
import type { FlowsService, FlowsView, FlowTool, FlowToolbox } from './view.js';
import type { FlowListing, FlowRead, FlowSaved } from './answers.js';
import { BadRequest, Conflict, Forbidden, NotFound, QuotaExceeded } from '../errors.js';
import { NO_EVENTS, type EventSink } from '../events/events.js';
import type { Caller } from '../workspace/caller.js';
import { flowDocumentJsonSchema, parseFlow, prepareParams, type FlowDocument } from './document.js';
import { draftFlow } from './draft.js';
import { urlMatches } from './url-match.js';
import { checkFlowName, GLOBAL_LIBRARY } from './names.js';
import { validatorOf } from './parameters.js';
import { runFlow } from './runner.js';
import { toYamlText } from './yaml-text.js';
import { asFlowTool, checkToolSize } from './tool.js';
import { MAX_FLOWS_PER_LIBRARY } from '../limits.js';
import { StaleRevision, type FlowStore, type StoredFlow } from './store.js';
import { FlowListings } from './listings.js';
import { unlimitedRoom, type WorkspaceRoom } from '../quotas/disk.js';

/**
 * The flow libraries: each workspace's own, and `global`, shared. Reads merge the caller's
 * own with global (own wins); writes touch only the caller's own, and no agent writes global.
 */
export class FlowLibraries implements FlowsService {
  private readonly listings: FlowListings;
  private readonly listeners = new Set<(library: string) => void>();
  private readonly schema: Record<string, unknown>;

  constructor(
    private readonly store: FlowStore,
    private readonly capabilities: readonly Capability[],
    private readonly runTimeoutMs: number,
    /** the operator's event stream: each run, how far it got */
    private readonly events: EventSink = NO_EVENTS,
    /** each library's turn for its saves, and its workspace's WORKSPACE_DISK_QUOTA */
    private readonly room: WorkspaceRoom = unlimitedRoom(),
  ) {
    this.schema = flowDocumentJsonSchema(capabilities);
    this.listings = new FlowListings(store, capabilities);
  }

  view(caller: Caller, toolbox: FlowToolbox): FlowsView {
    const own = caller.workspace;
    return {
      list: (everywhere, url) => this.list(own, everywhere, toolbox, url),
      get: async (name) => this.read(await this.find(own, name)),
      save: (name, document, ifMatch) => this.save(own, name, document, ifMatch),
      delete: (name, ifMatch) => this.remove(own, name, ifMatch),
      run: (name, params, verbose) => this.run(own, name, params, verbose, toolbox),
      schema: () => this.schema,
      draft: async (last, name) => {
        if (!caller.key) {
          throw new BadRequest(
            'draft_flow drafts from the calls a named workspace made; name your workspace (?workspace=… or X-Workspace), make the calls, then draft.',
          );
        }
        const checked = name === undefined ? undefined : checkFlowName(name);
        if (checked !== undefined) {
          this.refuseToolName(checked);
        }
        const draft = draftFlow(await toolbox.recentCalls(), last, checked, this.capabilities);
        return { ...draft, name: checked ?? null, document: toPlain(draft.document) };
      },
    };
  }

  async tools(caller: Caller): Promise<FlowTool[]> {
    const own = caller.workspace;
    const uses = own && own !== GLOBAL_LIBRARY ? await this.store.uses(own) : {};
    return (await this.listings.merged(own))
      .flatMap((f) =>
        f.steps
          ? [
              {
                name: f.name,
                description: f.description,
                parameters: f.parameters,
                shared: f.shared,
                ...f.steps,
              },
            ]
          : [],
      )
      .sort((a, b) => (uses[b.name] ?? 0) - (uses[a.name] ?? 0) || a.name.localeCompare(b.name));
  }

  onChange(listener: (library: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(library: string): void {
    this.listings.forget(library);
    for (const listener of this.listeners) {
      listener(library);
    }
  }

  private async list(
    own: string | undefined,
    everywhere: boolean,
    toolbox: FlowToolbox,
    asked?: string,
  ): Promise<FlowListing[]> {
    const merged = (await this.listings.merged(own)).map(({ steps: _steps, ...listing }) => listing);
    if (everywhere) {
      return merged;
    }
    // A url asked for needs no browser: an HTTP caller can ask what applies to a page it has not opened.
    const url = asked ?? (await toolbox.currentUrl());
    return url ? merged.filter((f) => urlMatches(f.urls, url)) : merged;
  }

  private async find(own: string | undefined, rawName: string): Promise<StoredFlow> {
    const name = checkFlowName(rawName);
    const stored =
      (own && own !== GLOBAL_LIBRARY ? await this.store.get(own, name) : undefined) ??
      (await this.store.get(GLOBAL_LIBRARY, name));
    if (!stored) {
      throw new NotFound(`No flow named ${name}; list_flows (everywhere: true) lists the flows you can run.`);
    }
    return stored;
  }

  private read(stored: StoredFlow): FlowRead {
    const base = {
      name: stored.name,
      shared: stored.library === GLOBAL_LIBRARY,
      revision: stored.revision,
      text: stored.text,
    };
    try {
      return { ...base, document: toPlain(parseFlow(stored.text, this.capabilities)) };
    } catch (err) {
      return { ...base, document: null, problem: err instanceof Error ? err.message : 'unreadable' };
    }
  }

  private writable(own: string | undefined): string {
    if (!own) {
      throw new Forbidden(
        'Unnamed callers share the global library, which agents cannot write; name your workspace (?workspace=… or X-Workspace) to save flows of your own, or ask an operator to put this flow in global.',
      );
    }
    if (own === GLOBAL_LIBRARY) {
      throw new Forbidden(
        '"global" is the shared library, which agents cannot write; use a workspace with another name, or ask an operator.',
      );
    }
    return own;
  }

  private async save(
    own: string | undefined,
    name: string,
    source: string | Record<string, unknown>,
    ifMatch?: string,
  ): Promise<FlowSaved> {
    const { library: _library, ...saved } = await this.write(this.writable(own), name, source, ifMatch);
    return saved;
  }

  /**
   * The one rule set for a written flow, whoever writes it (an agent into its own library, an
   * operator into any, `global` included): the name rule, never a tool's name, a document that
   * parses with parameters that compile, its tool's size, room in the library, and a stale
   * `ifMatch` a 409 (StaleRevision) that writes nothing.
   */
  async write(
    library: string,
    rawName: string,
    source: string | Record<string, unknown>,
    ifMatch?: string,
  ): Promise<FlowSaved & { library: string }> {
    const name = checkFlowName(rawName);
    this.refuseToolName(name);
    const text = toYamlText(source);
    const document = parseFlow(source, this.capabilities);
    if (document.parameters) {
      validatorOf(document.parameters);
    }
    checkToolSize(asFlowTool(name, document, library === GLOBAL_LIBRARY, this.capabilities));
    const { flow, created } = await this.putInRoom(library, name, text, ifMatch);
    this.changed(library);
    return { name, library, revision: flow.revision, created };
  }

  /** Deletes a flow of `library`, at `ifMatch` when given (else a 409); false when there is none. */
  async erase(library: string, rawName: string, ifMatch?: string): Promise<boolean> {
    const name = checkFlowName(rawName);
    const existing = await this.store.get(library, name);
    if (!existing) {
      return false;
    }
    if (ifMatch !== undefined && existing.revision !== ifMatch) {
      throw new StaleRevision(name, ifMatch, existing.revision);
    }
    const deleted = await this.store.delete(library, name);
    if (deleted) {
      this.changed(library);
    }
    return deleted;
  }

  /**
   * Moves a flow between libraries (an operator's act): written at the destination first, then
   * removed here, so a failure between the two leaves it in both places, which an operator sees
   * and mends; the other order could lose it. Undefined when `from` has no such flow.
   */
  async move(from: string, to: string, rawName: string): Promise<{ name: string; revision: string } | undefined> {
    const name = checkFlowName(rawName);
    if (from === to) {
      throw new BadRequest(`Flow ${name} is already in ${to}; name another destination (global, or a workspace).`);
    }
    const source = await this.store.get(from, name);
    if (!source) {
      return undefined;
    }
    if (await this.store.get(to, name)) {
      throw new Conflict(
        `${to} already has a flow named ${name}; delete or rename that one first, then move this one.`,
      );
    }
    // A flow that cannot be read is no tool, and moves as it is.
    const document = readable(source.text, this.capabilities);
    if (document) {
      checkToolSize(asFlowTool(name, document, to === GLOBAL_LIBRARY, this.capabilities));
    }
    const { flow } = await this.putInRoom(to, name, source.text);
    await this.store.delete(from, name);
    this.changed(to);
    this.changed(from);
    return { name, revision: flow.revision };
  }

  /**
   * Writes a flow in the library's turn (every replica's saves of it, one at a time), so the count
   * read is the count written to: a new flow needs room in its library (at most
   * MAX_FLOWS_PER_LIBRARY; replacing one takes none), and its bytes room on the workspace's disk.
   */
  private async putInRoom(library: string, name: string, text: string, ifMatch?: string) {
    const replacing = async () => Buffer.byteLength((await this.store.get(library, name))?.text ?? '');
    return this.room.take(
      library,
      Buffer.byteLength(text),
      async () => {
        const names = await this.store.names(library);
        if (names.length >= MAX_FLOWS_PER_LIBRARY && !names.includes(name)) {
          throw new QuotaExceeded(
            `${library} holds ${names.length} flows, the most a library holds (${MAX_FLOWS_PER_LIBRARY}); delete flows it no longer needs (delete_flow), or replace one of them under its name.`,
          );
        }
        return this.store.put(library, name, text, ifMatch);
      },
      replacing,
    );
  }

  /** A flow is also a tool (flow_<name>): one named like a tool would read as that tool everywhere else. */
  private refuseToolName(name: string): void {
    if (this.capabilities.some((c) => c.name === name || c.name === `flow_${name}`)) {
      throw new BadRequest(
        `"${name}" is the name of a tool; a flow named like one would be mistaken for it: choose another name, e.g. ${name}_steps.`,
      );
    }
  }

  private async remove(own: string | undefined, name: string, ifMatch?: string) {
    const deleted = await this.erase(this.writable(own), name, ifMatch);
    if (!deleted) {
      throw new NotFound(
        `No flow named ${checkFlowName(name)} in your library; list_flows shows what exists (global flows cannot be deleted by agents).`,
      );
    }
    return { deleted };
  }

  private async run(
    own: string | undefined,
    rawName: string,
    given: Record<string, unknown>,
    verbose: boolean,
    toolbox: FlowToolbox,
  ) {
    const stored = await this.find(own, rawName);
    let document: FlowDocument;
    try {
      document = parseFlow(stored.text, this.capabilities);
    } catch (err) {
      throw new BadRequest(
        `Flow ${stored.name} cannot run: ${err instanceof Error ? err.message : 'it is unreadable'} Fix it with save_flow.`,
      );
    }
    const params = prepareParams(document, given);
    if (own && own !== GLOBAL_LIBRARY) {
      // Only orders the listed flow tools: a run is not refused because this could not be written.
      await this.store.recordUse(own, stored.name).catch(() => undefined);
    }
    const report = await runFlow({
      name: stored.name,
      document,
      capabilities: this.capabilities,
      params,
      verbose,
      timeoutMs: this.runTimeoutMs,
      call: (tool, args, step) => toolbox.call(tool, args, step),
      currentUrl: () => toolbox.currentUrl(),
      endPage: () => toolbox.endPage(),
      onStep: toolbox.progress
        ? (step, total) =>
            toolbox.progress?.(step.n, total, `step ${step.n} ${step.tool}: ${step.ok ? 'ok' : 'failed'}`)
        : undefined,
    });
    this.events.emit({
      type: 'flow_run',
      workspace: own ?? null,
      flow: report.flow,
      status: report.status,
      steps_run: report.steps_run,
      steps_total: report.steps_total,
    });
    return report;
  }
}

function readable(text: string, capabilities: readonly Capability[]): FlowDocument | undefined {
  try {
    return parseFlow(text, capabilities);
  } catch {
    return undefined;
  }
}

function toPlain(document: FlowDocument): Record<string, unknown> {
  return JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
}
