/**
 * The Grid this host starts for itself (`npm start`, `stdio`, `selenium-flow grid`, the tests): a
 * program of its own (processes, account, fence, displays, config), apart from the Grid client in
 * grid/. Only the commands that start it import it, through this face.
 */
export { startEmbeddedGrid, type EmbeddedGrid, type EmbeddedGridOptions, type PortRange } from './start.js';
export { startHubAndNodes, type HubAndNodesOptions } from './hub-and-nodes.js';
export { BROWSER_GROUP, GRID_USER } from './account.js';
export { freePort, signalGroup } from './processes.js';
export { describeFence, type FenceReport, type FenceSetting } from './fence-report.js';
export { fenceForGrid, startGridFence, type GridFence, type OutsideGrid } from './grid-fence.js';
export { InstanceNotice } from './neighbours.js';
