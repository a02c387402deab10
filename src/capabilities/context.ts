import type { KnownWindows } from '../browser/tabs.js';
import type { WebDriver } from 'selenium-webdriver';
import type { PageState } from '../browser/page-state.js';
import type { WorkspaceFiles } from '../files/workspace-files.js';
import type { LiveAppView } from '../live/app-live.js';
import type { ControlView } from '../live/hand-back.js';
import type { NetworkView } from '../live/monitor/network-view.js';
import type { SecretListing } from '../secrets/catalogue.js';
import type { ReceivingPage, SecretRef, TypeOutcome } from '../secrets/binding.js';
import type { Caller } from '../workspace/caller.js';
import type { FlowsView } from '../flows/view.js';
import type { WorkspaceView } from '../workspace/view.js';

/** What the handler of a tool attached to a browser sees, and nothing more. */
export interface BrowserToolContext {
  driver: WebDriver;
  browserName: string;
  caller: Caller;
  /** the caller's workspace files (a 400 saying why, for a caller or server without them) */
  files: WorkspaceFiles;
  secrets: SecretsAccess;
  /** nobody will read this call's answer (see AsStep): skip what is read only to answer */
  answerUnread: boolean;
  /**
   * the handler read where the browser is in a round trip it made anyway (write, with the value
   * it reads back): the call path answers and remembers that page instead of reading it again
   */
  pageKnown: (page: PageState) => void;
  /**
   * how many frames deep the caller entered with the frame tool (0: the top page), checked as
   * this call began; undefined where nobody tracks it (a stateless caller's browser)
   */
  frames: number | undefined;
  /** what the handler changed of the browser, for the workspace to remember (its record) */
  remember: (change: BrowserChange) => void;
}

/**
 * What a handler can change that the workspace remembers: `frames`, how many frames deep the
 * browser is now (0: the top page); `window`, its size, for the workspace's next browser too.
 */
export interface BrowserChange {
  frames?: number;
  window?: { width: number; height: number };
  /** the browser's windows, after the tabs tool listed them */
  windows?: KnownWindows;
}

/** What a tool may do with secrets: list them, and get one value for the page about to receive it. */
export interface SecretsAccess {
  list(): Promise<SecretListing>;
  /** the secret and key exist here and may be used somewhere (a 404 or 403 saying why) */
  check(secret: SecretRef, page: ReceivingPage): Promise<void>;
  /**
   * resolves, checks the leash on `page`, hands the value to `typer` (which puts it into the
   * page and nowhere else) and audits the outcome; a refused outcome is thrown as a 403
   */
  type(secret: SecretRef, page: ReceivingPage, typer: (value: string) => Promise<TypeOutcome>): Promise<TypeOutcome>;
  /** whether a text carries a value typed into this browser: for a reader that cuts its text afterwards */
  carries(text: string): boolean;
  /** whether any secret was typed into this browser (so a capture masks its fields) */
  typedHere(): boolean;
  /** the browser is ending (or being replaced): what was typed into it need not be held any longer */
  forgetBrowser(): void;
}

/** What the handler of a tool that manages the workspace (attach: 'none') sees. */
export interface WorkspaceToolContext {
  caller: Caller;
  workspace: WorkspaceView;
  /** undefined when flows are off (no data directory) */
  flows: FlowsView | undefined;
  files: WorkspaceFiles;
  secrets: SecretsAccess;
  network: NetworkView;
  control: ControlView;
  /** the caller's own workspace's live view (the live app: watch, take and hand back Control) */
  live: LiveAppView;
}
