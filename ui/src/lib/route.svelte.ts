/**
 * The view is the URL hash, so a reload or a shared link lands on the same view:
 * `#/workspaces`, `#/workspaces/<name>[/files|/flows[/<flow>[/steps/<n>]]|/secrets|/live]`, `#/events`,
 * `#/grid`. A step in the address is what the Secrets and Files tabs link to (the step that types a
 * secret, or made a file).
 */
export const WORKSPACE_TABS = ['files', 'flows', 'secrets', 'live'] as const;
export type WorkspaceTab = (typeof WORKSPACE_TABS)[number];

/** A step by its 1-based number, or by its id (an id starts with a letter, so the two never clash). */
export type FlowStepRef = number | string;
const STEP_NUMBER = /^[1-9]\d{0,3}$/;
const STEP_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export type Route =
  | { view: 'workspaces' }
  | { view: 'workspace'; name: string; tab: WorkspaceTab; flow?: string; step?: FlowStepRef }
  | { view: 'events' }
  | { view: 'grid' }
  | { view: 'unknown'; message: string };

/** The server's rule, said the way the server says it (src/workspace/names.ts). */
export const WORKSPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const WORKSPACE_NAME_RULE =
  'A workspace name is 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit.';

const current = $state({ hash: location.hash });
window.addEventListener('hashchange', () => {
  current.hash = location.hash;
});

export function route(): Route {
  return parse(current.hash);
}

function decoded(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

export function parse(hash: string): Route {
  const [view = '', rawName, tab, ...rest] = hash.replace(/^#\/?/, '').split('/');
  if (view === '' || (view === 'workspaces' && rawName === undefined)) {
    return { view: 'workspaces' };
  }
  if (view === 'events' || view === 'grid') {
    return { view };
  }
  if (view !== 'workspaces') {
    return { view: 'unknown', message: `There is no view called “${view.slice(0, 60)}”.` };
  }
  const name = decoded(rawName ?? '');
  if (name === undefined || !WORKSPACE_NAME.test(name) || name === '.' || name === '..') {
    return {
      view: 'unknown',
      message: `“${(name ?? rawName ?? '').slice(0, 80)}” is not a workspace name. ${WORKSPACE_NAME_RULE}`,
    };
  }
  const chosen = (WORKSPACE_TABS as readonly string[]).includes(tab ?? '') ? (tab as WorkspaceTab) : 'files';
  // A flow name never holds a '/' (it follows the workspace-name rule), so `<flow>/steps/<n>` is unambiguous.
  const [rawFlow, stepsWord, rawStep] = rest;
  const flow = chosen === 'flows' && rawFlow ? decoded(rawFlow) : undefined;
  const step = flow && stepsWord === 'steps' ? stepRef(rawStep ?? '') : undefined;
  return { view: 'workspace', name, tab: chosen, ...(flow ? { flow } : {}), ...(step === undefined ? {} : { step }) };
}

function stepRef(raw: string): FlowStepRef | undefined {
  return STEP_NUMBER.test(raw) ? Number(raw) : STEP_ID.test(raw) ? raw : undefined;
}

export function workspaceHref(name: string, tab: WorkspaceTab = 'files', flow?: string, step?: FlowStepRef): string {
  const base = `#/workspaces/${encodeURIComponent(name)}`;
  if (tab === 'files') {
    return base;
  }
  const flowPart = flow
    ? `/${encodeURIComponent(flow)}${step === undefined ? '' : `/steps/${encodeURIComponent(step)}`}`
    : '';
  return `${base}/${tab}${flowPart}`;
}

/** Picking a flow updates the link without stacking history. */
export function replaceHash(hash: string): void {
  history.replaceState(null, '', hash);
  current.hash = hash;
}
