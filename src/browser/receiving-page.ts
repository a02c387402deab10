import type { WebDriver, WebElement } from 'selenium-webdriver';
import { z } from 'zod';
import { sendDevTools } from './commands.js';
import { frameAddress, inPage } from './scripts.js';
import { wdError } from './webdriver.js';

/**
 * The page about to receive keystrokes, in the shape the secrets leash takes (its own
 * declaration, secrets/binding.ts: neither layer imports the other): the top-level address,
 * the address of the field's document, and why the browser could not say, if it could not.
 */
export interface ReceivingPage {
  top: string;
  frame: string;
  unverified?: string;
}

/**
 * The page that would receive keystrokes, as the page says it: the top-level address and the
 * address of the document the driver is in. For the looks that carry no value (the leash's
 * first, whether the page moved after a secret went in); where a value goes, `fieldPage`.
 */
export async function receivingPage(driver: WebDriver): Promise<ReceivingPage> {
  const [top, frame] = await Promise.all([driver.getCurrentUrl(), frameAddressOf(driver)]);
  return { top, frame };
}

async function frameAddressOf(driver: WebDriver): Promise<string> {
  const address = await driver.executeScript<unknown>(inPage(frameAddress));
  return typeof address === 'string' ? address : '';
}

/**
 * chromedriver's reference to an element names the frame and the document it is in:
 * `f.<frame id>.d.<document (loader) id>.e.<node>`, the ids DevTools uses.
 */
const CHROMEDRIVER_REFERENCE = /^f\.([0-9A-F]+)\.d\.([0-9A-F]+)\.e\.\d+$/;

interface FrameTree {
  frame: { id: string; loaderId: string; url: string };
  childFrames?: FrameTree[];
}

const frameTree: z.ZodType<FrameTree> = z.lazy(() =>
  z.object({
    frame: z.object({ id: z.string(), loaderId: z.string(), url: z.string() }),
    childFrames: z.array(frameTree).optional(),
  }),
);

const frames = z.object({ frameTree });

const targets = z.object({
  targetInfos: z.array(z.object({ targetId: z.string(), type: z.string(), url: z.string() })),
});

/**
 * Where a secret set into `element` lands, as the browser says it: the top-level page and the
 * field's own document, for the leash. Asking the page is not enough on Chromium:
 * chromedriver runs a script, Get Current URL's among them, in the page's own world and calls
 * it through the page's own `Function.prototype.apply`, so a page that replaces it sees every
 * argument and chooses every answer — a hostile frame named an allowed origin, then received
 * the secret passed to the script that set it (test/fixtures/site/hostile/apply-thief.html).
 * DevTools names the element's document instead (from chromedriver's reference), and a script
 * given the element runs in that document or not at all (chromedriver refuses a replaced one
 * as stale). geckodriver runs our scripts in a sandbox the page's functions do not reach, and
 * reads the address itself: there the driver and the document's own `location` answer.
 * When the browser cannot say, `unverified` says why: nothing is typed, and the leash audits it.
 */
export async function fieldPage(driver: WebDriver, element: WebElement): Promise<ReceivingPage> {
  if ((await driver.getCapabilities()).getBrowserName() === 'firefox') {
    return receivingPage(driver);
  }
  const reference = CHROMEDRIVER_REFERENCE.exec(await element.getId());
  if (!reference?.[1] || !reference[2]) {
    return unverified('its driver does not say which document the field is in');
  }
  const [, frameId, documentId] = reference;
  let tree: FrameTree;
  try {
    tree = frames.parse(await sendDevTools(driver, 'Page.getFrameTree', {})).frameTree;
  } catch (err) {
    return unverifiedBy(err);
  }
  const top = tree.frame.url;
  const frame = findFrame(tree, frameId);
  if (frame) {
    // A replaced document is the field gone with it, as WebDriver says it.
    if (frame.loaderId !== documentId) {
      throw new (wdError().StaleElementReferenceError)('the document of the field is gone');
    }
    return { top, frame: frame.url };
  }
  // A frame from another site runs in a process of its own: a DevTools target of its own,
  // named by the frame's id, whose address the browser keeps. (Its document is not compared
  // here: a script given the field still runs in the field's own document or not at all.)
  let listed: z.infer<typeof targets>;
  try {
    listed = targets.parse(await sendDevTools(driver, 'Target.getTargets', {}));
  } catch (err) {
    return unverifiedBy(err);
  }
  const target = listed.targetInfos.find((t) => t.type === 'iframe' && t.targetId === frameId);
  return target ? { top, frame: target.url } : unverified('the browser lists no frame the field is in');
}

function findFrame(tree: FrameTree, id: string): FrameTree['frame'] | undefined {
  if (tree.frame.id === id) {
    return tree.frame;
  }
  for (const child of tree.childFrames ?? []) {
    const found = findFrame(child, id);
    if (found) {
      return found;
    }
  }
  return undefined;
}

function unverifiedBy(err: unknown): ReceivingPage {
  if (err instanceof wdError().WebDriverError || err instanceof z.ZodError) {
    return unverified('the browser did not answer the DevTools command that says it');
  }
  throw err;
}

function unverified(why: string): ReceivingPage {
  return { top: '', frame: '', unverified: why };
}
