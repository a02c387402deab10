import type { Capability } from '../capability.js';
import capture from './capture.js';
import files from './files.js';
import flows from './flows.js';
import input from './input.js';
import live from './live.js';
import navigation from './navigation.js';
import network from './network.js';
import reading from './reading.js';
import secrets from './secrets.js';
import workspace from './workspace.js';

/** The capability table: every tool, in the order clients list them. */
export const CAPABILITIES: readonly Capability[] = [
  ...workspace,
  ...navigation,
  ...input,
  ...reading,
  ...capture,
  ...network,
  ...files,
  ...flows,
  ...secrets,
  ...live,
];
