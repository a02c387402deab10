import { callTool, type CallDeps } from '../capabilities/call.js';
import { currentWorkspace } from '../capabilities/workspace-tools.js';
import { readSkill } from '../capabilities/skill.js';
import { NotFound } from '../errors.js';
import type { Caller } from '../workspace/caller.js';

export const SKILL_URI = 'skill://selenium-flow/SKILL.md';
export const CURRENT_URI = 'workspace://current';

export const RESOURCES = [
  {
    uri: SKILL_URI,
    name: 'selenium-flow skill',
    title: 'How to use selenium-flow',
    description: 'The loop, the tools, selectors and the two modes, in one page. Read it first.',
    mimeType: 'text/markdown',
  },
  {
    uri: CURRENT_URI,
    name: 'current workspace',
    title: 'Current workspace',
    description: 'This caller’s workspace: its browser, window and last page. Reading it never opens a browser.',
    mimeType: 'application/json',
  },
];

export async function readResource(deps: CallDeps, caller: Caller, uri: string) {
  if (uri === SKILL_URI) {
    return [{ uri, mimeType: 'text/markdown', text: await readSkill() }];
  }
  if (uri === CURRENT_URI) {
    const current = await callTool(deps, currentWorkspace, {}, caller);
    return [{ uri, mimeType: 'application/json', text: JSON.stringify(current) }];
  }
  throw new NotFound(`No resource ${uri}; list them with resources/list.`);
}
