/** The admin API's answers, as the page reads them (the server's zod shapes are the truth). */

export interface FileEntry {
  name: string;
  uri: string;
  size: number;
  created: string;
  content_type: string;
  image: boolean;
  url: string;
}

export interface Sections {
  workspace: string;
  browser: boolean;
  downloads: FileEntry[];
  screenshots: FileEntry[];
  files: FileEntry[];
}

export type BrowserState = 'live' | 'reaped' | 'none';

export interface Counts {
  downloads: number | null;
  screenshots: number | null;
  files: number | null;
  flows: number | null;
}

export interface WorkspaceRow {
  name: string;
  browser: BrowserState;
  last_url: string | null;
  counts: Counts;
  last_activity: string | null;
  problem?: string;
}

export interface WorkspaceHeader extends WorkspaceRow {
  session?: { browser?: string; window?: string; started?: string } | null;
  grid?: { version?: string; node?: string; id?: string } | null;
}

export interface FlowRow {
  name: string;
  description?: string;
  shared: boolean;
  problem?: string;
}

export interface FlowStep {
  id?: string;
  tool: string;
  args?: Record<string, unknown>;
}

export interface FlowDetail {
  name: string;
  shared: boolean;
  revision: string;
  text: string;
  document: {
    description?: string;
    parameters?: { properties?: Record<string, { type?: string; description?: string }>; required?: string[] };
    steps?: FlowStep[];
  } | null;
  /** parameter name → the 1-based steps that read it */
  uses?: Record<string, number[]>;
  problem?: string;
}

export interface SecretUse {
  workspace: string;
  flow: string;
  steps: number[];
  keys: string[];
  shared: boolean;
}

export interface SecretCard {
  name: string;
  description: string | null;
  keys: string[];
  allowed_urls: string[];
  restricted: boolean;
  usable: boolean;
  problem?: string;
  allowed_urls_rejected?: { line: number; reason?: string }[];
  source: string;
  location: string;
  workspace: string | null;
  uses: SecretUse[];
}

export interface SecretsAnswer {
  enabled: boolean;
  secrets: SecretCard[];
  undefined: { name: string; uses: SecretUse[] }[];
}

export interface AuditEvent {
  id?: string;
  at: string;
  kind: string;
  workspace?: string;
  [key: string]: unknown;
}

export interface GridAnswer {
  ready: boolean;
  message?: string;
  nodes: {
    id?: string;
    uri?: string;
    availability?: string;
    version?: string;
    slots: { browser?: string; session?: { workspace?: string; started?: string } | null }[];
  }[];
}
