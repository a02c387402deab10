import type { WebDriver, WebElement } from 'selenium-webdriver';
import { z } from 'zod';
import { Forbidden } from '../errors.js';
import { sendDevTools } from './commands.js';
import { wdError } from './webdriver.js';

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
 * The address of the document an element is in, as the browser says it: where a secret set
 * into that element lands, for the leash. Asking the page is not enough on Chromium:
 * chromedriver runs a script in the page's own world and calls it through the page's own
 * `Function.prototype.apply`, so a frame that replaces it sees every argument and chooses every
 * answer — a hostile frame named an allowed origin, then received the secret passed to the
 * script that set it (test/fixtures/site/hostile/apply-thief.html). DevTools names the
 * element's document instead, and a script given the element runs in that document or not at
 * all (chromedriver refuses a replaced one as stale). geckodriver runs our scripts in a sandbox
 * the page's functions do not reach: there the document's own `location` answers (`ask`).
 */
export async function fieldDocument(
  driver: WebDriver,
  element: WebElement,
  ask: () => Promise<string>,
): Promise<string> {
  if ((await driver.getCapabilities()).getBrowserName() === 'firefox') {
    return ask();
  }
  const reference = CHROMEDRIVER_REFERENCE.exec(await element.getId());
  if (!reference?.[1] || !reference[2]) {
    throw unverifiable('its driver does not say which document the field is in');
  }
  const [, frameId, documentId] = reference;
  try {
    const { frameTree: tree } = frames.parse(await sendDevTools(driver, 'Page.getFrameTree', {}));
    const frame = findFrame(tree, frameId);
    if (frame) {
      return frame.loaderId === documentId ? frame.url : stale();
    }
    // A frame from another site runs in a process of its own: a DevTools target of its own,
    // named by the frame's id, whose address the browser keeps.
    const { targetInfos } = targets.parse(await sendDevTools(driver, 'Target.getTargets', {}));
    return targetInfos.find((t) => t.type === 'iframe' && t.targetId === frameId)?.url ?? stale();
  } catch (err) {
    if (err instanceof wdError().StaleElementReferenceError) {
      throw err;
    }
    if (err instanceof wdError().WebDriverError || err instanceof z.ZodError) {
      throw unverifiable('the browser did not answer the DevTools command that says it');
    }
    throw err;
  }
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

/** The field's document is gone (the page or its frame moved on): as WebDriver says it. */
function stale(): never {
  throw new (wdError().StaleElementReferenceError)('the document of the field is gone');
}

function unverifiable(why: string): Forbidden {
  return new Forbidden(
    `A secret is typed only where the browser itself says which page receives it, and ${why}; nothing was typed. Type it on Chromium through a Selenium Grid (which passes DevTools commands), or on Firefox.`,
  );
}
