import type { Files } from '../files/files.js';
import type { FlowsService } from '../flows/view.js';
import type { Secrets } from '../secrets/binding.js';
import type { Turns } from '../workspace/turns.js';
import type { Workspaces } from '../workspace/workspaces.js';

/**
 * The services the admin API acts through: a narrow part of what the call path is built from,
 * so admin/ depends on the domains, not on the call path.
 */
export interface AdminDeps {
  workspaces: Workspaces;
  turns: Turns;
  /** downloads, screenshots and Files of every workspace */
  files: Files;
  /** the secrets catalogue and its audit; undefined: none configured */
  secrets?: Secrets;
  /** told when a deleted workspace's flows go; undefined when flows are off */
  flows?: Pick<FlowsService, 'changed'>;
}
