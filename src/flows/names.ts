import { BadRequest } from '../errors.js';
import { isWorkspaceName, WORKSPACE_NAME_RULE } from '../workspace/names.js';

export const GLOBAL_LIBRARY = 'global';

/** Flow names follow the workspace-name rule, validated and never slugged. */
export function checkFlowName(name: string): string {
  if (!isWorkspaceName(name)) {
    // Not said back: a name that breaks the rule may be any text at all.
    throw new BadRequest(
      `Invalid flow name: ${WORKSPACE_NAME_RULE.replace('A workspace name', 'a flow name')}; rename it and call again.`,
    );
  }
  if (name === 'schema') {
    throw new BadRequest('"schema" is reserved (GET /flows/schema is the document schema); choose another flow name.');
  }
  return name;
}
