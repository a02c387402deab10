import type { WebDriver } from 'selenium-webdriver';
import { BadRequest, NotFound } from '../errors.js';
import { devtoolsPages } from './devtools.js';
import { navigateTo } from './navigation.js';
import { readPageState, type PageState } from './page-state.js';
import { wdError } from './webdriver.js';

/**
 * A tab as an agent sees it: `tab` is its place among the browser's tabs, in the order the
 * browser lists them (the order they opened), which a flow can name too (-1, the newest).
 */
export interface Tab {
  tab: number;
  url: string;
  title: string;
  active: boolean;
  dialog?: true;
}

/**
 * The windows a browser lists, by WebDriver handle, as the workspace remembers them: its tabs,
 * and Chromium's own WebUI windows (the omnibox's popup), listed with them but no tab.
 * Remembering both lets an act tell a tab it opened from a window seen before, unread.
 */
export interface KnownWindows {
  tabs: string[];
  ui: string[];
}

/** Chromium's browser UI pages (chrome://omnibox-popup.top-chrome/): listed as windows, never a tab. */
const BROWSER_UI = /^chrome:\/\/[^/]*\.top-chrome\//;

/** A limit on what the record keeps (a page that opens windows in a loop must not grow it), as many as a tab place names. */
const MAX_KNOWN = 100;

interface Listed {
  tabs: Tab[];
  handles: string[];
  windows: KnownWindows;
}

/**
 * The browser's tabs, each read in turn (WebDriver reads only the window it is on), and the
 * browser back on the tab it was on; one whose tab was closed is left on the first tab.
 */
export async function listTabs(driver: WebDriver): Promise<Listed> {
  const current = await currentHandle(driver);
  const tabs: Tab[] = [];
  const handles: string[] = [];
  const ui: string[] = [];
  for (const handle of await driver.getAllWindowHandles()) {
    await driver.switchTo().window(handle);
    const page = await readTab(driver);
    if (page === 'ui') {
      ui.push(handle);
      continue;
    }
    const dialog = page.dialog ? { dialog: true as const } : {};
    tabs.push({ tab: tabs.length, url: page.url, title: page.title, active: handle === current, ...dialog });
    handles.push(handle);
  }
  const active = tabs.find((tab) => tab.active) ?? tabs[0];
  if (active) {
    active.active = true;
    await driver.switchTo().window(handles[active.tab] ?? '');
  }
  return { tabs, handles, windows: bounded({ tabs: handles, ui }) };
}

/** Moves the browser (and what a person watching sees) to the tab at `tab` (-1: the last). */
async function selectTab(driver: WebDriver, tab: number): Promise<void> {
  const { handles } = await listTabs(driver);
  await driver.switchTo().window(handleAt(handles, tab));
}

/** Select, open or close a tab as asked, then list them all (the tabs action only lists). */
export async function actOnTabs(
  driver: WebDriver,
  args: { url?: string; action?: string; tab?: number },
  pageKnown: (page: PageState) => void,
): Promise<Listed> {
  if (args.action === 'new_tab') {
    await openTab(driver);
    if (args.url !== undefined) {
      pageKnown(await navigateTo(driver, args.url));
    }
  } else if (args.action === 'close_tab') {
    await closeTab(driver, args.tab);
  } else if (args.tab !== undefined) {
    await selectTab(driver, args.tab);
  }
  return listTabs(driver);
}

/** Opens a blank tab and moves the browser to it (the caller navigates it, if asked). */
async function openTab(driver: WebDriver): Promise<void> {
  await driver.switchTo().newWindow('tab');
}

/**
 * Closes the tab (the current one when none is named) and moves the browser to the tab it was
 * on, or to the last open tab when that was the one closed. The last tab stays: closing it
 * would end the browser, which end_browser does on purpose.
 */
async function closeTab(driver: WebDriver, tab: number | undefined): Promise<void> {
  const { tabs, handles } = await listTabs(driver);
  const current = handles[tabs.find((open) => open.active)?.tab ?? -1];
  const closing = tab === undefined ? current : handleAt(handles, tab);
  if (closing === undefined) {
    throw new NotFound('The browser has no tab open; call open_session for a new browser.');
  }
  const staying = handles.filter((handle) => handle !== closing);
  if (staying.length === 0) {
    throw new BadRequest("That is the browser's last tab; end_browser ends the browser, or open another tab first.");
  }
  await driver.switchTo().window(closing);
  await driver.close();
  await driver.switchTo().window(current !== closing && current ? current : (staying[staying.length - 1] ?? ''));
}

/**
 * The tabs an act opened (by place), and the windows the workspace knows after it. Chromium's
 * windows are listed by DevTools, never by WebDriver: chromedriver lists a new tab only once it
 * has set it up, which a page that never yields holds until the act's deadline. DevTools names
 * each page's address too, which tells Chromium's UI windows from tabs. Firefox opens no UI
 * windows, and its WebDriver list does not wait on a page. A browser before its first act (a
 * navigation, which opens no tab) learns its windows unread: the tab it is on, and any other
 * as UI.
 */
export async function tabsOpenedSince(
  driver: WebDriver,
  known: KnownWindows | undefined,
  devtools: string | undefined,
): Promise<{ opened: number[]; windows: KnownWindows }> {
  const listed = (devtools && (await devtoolsPages(devtools, DEVTOOLS_MS).catch(() => undefined))) || undefined;
  const handles = listed?.map((page) => page.targetId) ?? (await driver.getAllWindowHandles());
  if (!known) {
    const current = await driver.getWindowHandle();
    return { opened: [], windows: bounded({ tabs: [current], ui: handles.filter((h) => h !== current) }) };
  }
  const unseen = handles.filter((h) => !known.tabs.includes(h) && !known.ui.includes(h));
  const newUi = new Set(listed?.filter((page) => BROWSER_UI.test(page.url)).map((page) => page.targetId));
  const ui = [...known.ui.filter((h) => handles.includes(h)), ...unseen.filter((h) => newUi.has(h))];
  const newTabs = unseen.filter((h) => !newUi.has(h));
  // chromedriver lists tabs in the order they opened, which DevTools does not keep: the tabs
  // the workspace knew, in their order, then the new ones.
  const tabs = listed
    ? [...known.tabs.filter((h) => handles.includes(h)), ...newTabs]
    : handles.filter((h) => !ui.includes(h));
  return { opened: newTabs.map((h) => tabs.indexOf(h)), windows: bounded({ tabs, ui }) };
}

/** How long the question to DevTools may take: an act's answer waits for it. */
const DEVTOOLS_MS = 2_000;

function handleAt(handles: string[], tab: number): string {
  const handle = handles.at(tab);
  if (handle === undefined) {
    throw new NotFound(
      `No tab ${tab}: the browser has ${handles.length} (0 to ${handles.length - 1}, or -1 for the last); navigate {action: "tabs"} lists them.`,
    );
  }
  return handle;
}

async function readTab(driver: WebDriver): Promise<'ui' | { url: string; title: string; dialog?: unknown }> {
  return BROWSER_UI.test(await urlOf(driver)) ? 'ui' : readPageState(driver);
}

/** The window's address; '' while a dialog hides it (a tab, then: no UI window opens one). */
async function urlOf(driver: WebDriver): Promise<string> {
  try {
    return await driver.getCurrentUrl();
  } catch (err) {
    if (err instanceof wdError().UnexpectedAlertOpenError) {
      return '';
    }
    throw err;
  }
}

async function currentHandle(driver: WebDriver): Promise<string | undefined> {
  try {
    return await driver.getWindowHandle();
  } catch (err) {
    if (err instanceof wdError().NoSuchWindowError) {
      return undefined;
    }
    throw err;
  }
}

function bounded(windows: KnownWindows): KnownWindows {
  return { tabs: windows.tabs.slice(-MAX_KNOWN), ui: windows.ui.slice(-MAX_KNOWN) };
}
