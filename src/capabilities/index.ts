import type { Capability } from './define.js';
import * as browserTools from './browser-tools.js';
import { keepFile, workspaceFiles } from './file-tools.js';
import { deleteFlow, getFlow, listFlows, runFlowTool, saveFlow } from './flow-tools.js';
import { listSecrets } from './secret-tools.js';
import { currentWorkspace, endBrowser, openSession, skillTool } from './workspace-tools.js';

/** The capability table: every tool, in the order clients list them. */
export const CAPABILITIES: readonly Capability[] = [
  openSession,
  endBrowser,
  browserTools.navigate,
  browserTools.interactTool,
  browserTools.write,
  browserTools.pressKeyTool,
  browserTools.frame,
  browserTools.dialog,
  browserTools.resize,
  browserTools.uploadFileTool,
  browserTools.executeScript,
  browserTools.extractTool,
  browserTools.outlineTool,
  browserTools.screenshot,
  browserTools.print,
  browserTools.assertTool,
  keepFile,
  runFlowTool,
  saveFlow,
  deleteFlow,
  listFlows,
  getFlow,
  workspaceFiles,
  listSecrets,
  currentWorkspace,
  skillTool,
];

const BY_NAME = new Map(CAPABILITIES.map((c) => [c.name, c]));

export function capabilityNamed(name: string): Capability | undefined {
  return BY_NAME.get(name);
}

/** Tools that only mirror a resource, for clients that cannot read resources. */
export const MIRROR_TOOLS = new Set([
  'current_workspace',
  'selenium_flow_skill',
  'list_flows',
  'get_flow',
  'workspace_files',
  'list_secrets',
]);
