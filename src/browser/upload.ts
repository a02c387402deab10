import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebDriver } from 'selenium-webdriver';
import { seleniumRemote } from './webdriver.js';
import { BadRequest } from '../errors.js';
import { describeSelector, findElement, type Selector } from './selectors.js';
import { holdsFile, inPage, isFileInput } from './scripts.js';

/**
 * Sets a file input. The bytes are written to a private temp file and sent through
 * WebDriver's file detector, which zips them over to the Grid node: the browser runs on
 * another machine and cannot read this one.
 */
export async function uploadFile(
  driver: WebDriver,
  selector: Selector,
  file: { name: string; bytes: Uint8Array },
  waitSeconds: number,
): Promise<void> {
  const element = await findElement(driver, selector, waitSeconds);
  // sendKeys would type the node's temp path into any other field.
  if (!(await driver.executeScript<boolean>(inPage(isFileInput), element))) {
    throw new BadRequest(
      `${describeSelector(selector)} is not a file input; point selector at the <input type="file">, find it with outline.`,
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'selenium-flow-upload-'));
  try {
    const path = join(dir, file.name);
    await writeFile(path, file.bytes, { mode: 0o600 });
    driver.setFileDetector(new (seleniumRemote().FileDetector)());
    // A page can make its file input another field as the file comes (on focus, on a timer):
    // the driver then types the node's temp path into it, or fails; either way the page has no file.
    const given = await element.sendKeys(path).then(
      () => undefined,
      (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
    );
    if (!(await driver.executeScript<boolean>(inPage(holdsFile, { isFileInput }), element))) {
      throw new BadRequest(
        `${describeSelector(selector)} holds no file after it was given one: the page turned it into another field or emptied it; read the page again with outline, and give the file to the file input it shows now.`,
      );
    }
    if (given !== undefined) {
      throw given;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
