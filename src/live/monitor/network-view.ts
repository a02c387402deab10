import { BadRequest, NotFound } from '../../errors.js';
import { BrowserGone } from '../../grid/failures.js';
import type { SecretCall } from '../../secrets/secret-call.js';
import type { Caller } from '../../workspace/caller.js';
import type { Workspaces } from '../../workspace/workspaces.js';
import type { CaptureListing, CapturedBody, NetworkFilter } from './capture.js';
import type { Monitoring } from './monitoring.js';

/** The workspace's network capture, as its tools see it (a saved workspace's; a 400 saying why otherwise). */
export interface NetworkView {
  /** on: starts (or restarts, emptying the list) capture of the workspace's browser; off: stops it */
  capture(
    on: boolean,
    match: string | undefined,
  ): Promise<{ capturing: boolean; match: string | null; since: string | null }>;
  list(filter: NetworkFilter): Promise<CaptureListing>;
  /** one captured response body, from the browser */
  body(request: string): Promise<CapturedBody>;
}

/** What a caller's network view is built from; `monitoring` is undefined where deps were built without it. */
export interface NetworkViewDeps {
  workspaces: Workspaces;
  monitoring?: Monitoring;
}

const NEEDS_WORKSPACE =
  'Network capture belongs to a saved workspace: name one with the X-Workspace header (HTTP) or ?workspace=… on the MCP URL, then call again.';

/**
 * The caller's network capture, bound to its workspace record: which browser, and the secrets
 * typed into it (taken in from the record first, so a value typed through another replica is
 * screened here too).
 */
export function networkView(deps: NetworkViewDeps, caller: Caller, secrets: SecretCall): NetworkView {
  const monitoring = () => {
    if (!deps.monitoring) {
      throw new Error('network capture is not wired into these call deps');
    }
    return deps.monitoring;
  };
  const recorded = async () => {
    if (!caller.key) {
      throw new BadRequest(NEEDS_WORKSPACE);
    }
    const record = await deps.workspaces.record(caller.key);
    await secrets.adopt(record);
    return { key: caller.key, record };
  };
  return {
    capture: async (on, match) => {
      const { key, record } = await recorded();
      if (!on) {
        await monitoring().capture.stop(key, record?.gridId);
        return { capturing: false, match: null, since: null };
      }
      if (!record?.gridId) {
        const name = caller.workspace ? `Workspace "${caller.workspace}"` : 'This workspace';
        throw new NotFound(
          `${name} has no browser; call open_session (or any acting tool) first, then turn capture on.`,
        );
      }
      if (!(await deps.workspaces.isAlive(record.gridId))) {
        await deps.workspaces.detach(key, record);
        throw new BrowserGone();
      }
      const state = await monitoring().capture.start(
        {
          key,
          gridId: record.gridId,
          bidiAddress: monitoring().bidiAddress(record.capabilities),
          carries: (text) => secrets.carries(text),
        },
        match,
      );
      return { capturing: true, match: state.match ?? null, since: state.since };
    },
    list: async (filter) => {
      const { key, record } = await recorded();
      return monitoring().capture.list(key, record?.gridId, filter);
    },
    body: async (request) => {
      const { key, record } = await recorded();
      const browser = { gridId: record?.gridId ?? '', bidiAddress: monitoring().bidiAddress(record?.capabilities) };
      return monitoring().capture.body(key, browser, request);
    },
  };
}
