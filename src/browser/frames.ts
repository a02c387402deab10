import type { WebDriver } from 'selenium-webdriver';
import { BadRequest, NotFound } from '../errors.js';
import { frameDepth, inPage } from './scripts.js';
import { findElement, type Selector } from './selectors.js';
import { wdError } from './webdriver.js';

const FRAME_DEPTH = inPage(frameDepth);

/** A not_found whose remedy is the frame tool, not a new browser. */
export class FrameGone extends NotFound {}

export const FRAME_GONE =
  'The frame you entered is gone (the page removed it or left the page it was on), so this call did nothing and the browser is back on the top page; enter the frame again with frame {action: "enter"}, or call again to act on the top page.';

/** An act's answer when the frame it acted in went away with the act: it is done, once. */
export const FRAME_LEFT_BY_ACT =
  'The frame this call acted in went away during it (the page removed it, or left the page it was on); what the call did there is done, once (a script has no answer then: result is null), and the browser is on the top page now, where the next call acts; enter a frame again with frame {action: "enter"}.';

/** An act that failed because its frame went away under it may have done part of its work there. */
export const FRAME_GONE_WHILE_ACTING =
  'The frame you entered went away while this call acted in it (the page removed it, or left the page it was on), so the call stopped there: what it did before (a click, keys, part of a text) stays done, so check the page before you repeat it; the browser is on the top page now, where the next call acts; enter a frame again with frame {action: "enter"}.';

/** How many frames deep the browser's commands run now: 0 on the top page. */
export async function framesDeep(driver: WebDriver): Promise<number> {
  return driver.executeScript<number>(FRAME_DEPTH);
}

/** The iframe to enter, or where to go back to. */
export type FrameTarget = Selector | 'parent' | 'top';

/** Switches, and answers how many frames deep the browser is then (the workspace remembers it). */
export async function switchFrame(driver: WebDriver, target: FrameTarget, waitSeconds: number): Promise<number> {
  if (target === 'top') {
    await driver.switchTo().defaultContent();
    return 0;
  }
  if (target === 'parent') {
    await driver.switchTo().parentFrame();
    return framesDeep(driver);
  }
  const element = await findElement(driver, target, waitSeconds);
  try {
    await driver.switchTo().frame(element);
  } catch (err) {
    if (err instanceof wdError().NoSuchFrameError) {
      throw new BadRequest('That element is not a frame; point selector at an <iframe> or <frame>.');
    }
    throw err;
  }
  return framesDeep(driver);
}

/**
 * Whether `err` is geckodriver saying the frame it was in is gone, not the window:
 * Firefox keeps commanding a discarded frame ("no such window") until told to leave it,
 * and the window-closed remedy (a new browser) would lose every cookie and login.
 */
export async function frameDiscarded(driver: WebDriver, err: unknown): Promise<boolean> {
  if (!(err instanceof wdError().NoSuchWindowError)) {
    return false;
  }
  try {
    await driver.getWindowHandle();
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the frame the caller entered (`entered` frames deep) is gone. chromedriver goes to
 * the top page on its own then, and runs every later command there without a word: a click
 * meant for the frame would land on the page.
 */
export async function enteredFrameGone(driver: WebDriver, entered: number): Promise<boolean> {
  let depth: number;
  try {
    depth = await framesDeep(driver);
  } catch (err) {
    if (!(await frameDiscarded(driver, err))) {
      throw err;
    }
    depth = -1;
  }
  return depth < entered;
}

export function frameGone(): FrameGone {
  return new FrameGone(FRAME_GONE);
}

export function frameGoneWhileActing(): FrameGone {
  return new FrameGone(FRAME_GONE_WHILE_ACTING);
}

/** Refuses a call meant for the frame the caller entered (`entered` deep) once it is gone. */
export async function checkEnteredFrame(driver: WebDriver, entered: number | undefined): Promise<void> {
  if (entered && (await enteredFrameGone(driver, entered))) {
    throw frameGone();
  }
}

/**
 * Whether the frame an act began in (`entered` deep, checked before it) went away during the
 * act: a script or a click that removed it, a key that sent it elsewhere. The act was done
 * there, once, and must not be reported as not done: a caller told so does it again.
 */
async function frameLeftDuring(driver: WebDriver, entered: number | undefined, err?: unknown): Promise<boolean> {
  if (!entered) {
    // Nobody tracks this browser's frames (a stateless caller): geckodriver's word is all there is.
    return err !== undefined && frameDiscarded(driver, err);
  }
  try {
    return await enteredFrameGone(driver, entered);
  } catch {
    // the browser cannot say (a dialog the act opened holds it): the act's own answer stands
    return false;
  }
}

/**
 * Whether the frame an act began in (`entered` deep) went away with it; if so the browser is
 * left on the top page, where the driver runs the next call anyway.
 */
export async function leftFrameWithAct(driver: WebDriver, entered: number | undefined): Promise<boolean> {
  if (!entered || !(await frameLeftDuring(driver, entered))) {
    return false;
  }
  await driver.switchTo().defaultContent();
  return true;
}

/**
 * The frame_gone a call failed with `err` is, if its frame being gone is why (`acting`: an act
 * begun in the frame `entered` deep, which may have done part of its work there). The browser
 * is then on the top page, so the next call acts there (the error says so, and how to go back in).
 */
export async function leaveGoneFrame(
  driver: WebDriver,
  err: unknown,
  { acting, entered }: { acting: boolean; entered: number | undefined },
): Promise<FrameGone | undefined> {
  let gone: FrameGone | undefined;
  if (err instanceof FrameGone) {
    gone = err;
  } else if (acting && (await frameLeftDuring(driver, entered, err))) {
    gone = frameGoneWhileActing();
  } else if (await frameDiscarded(driver, err)) {
    gone = frameGone();
  }
  if (gone) {
    await driver.switchTo().defaultContent();
  }
  return gone;
}
