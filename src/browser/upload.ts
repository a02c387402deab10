import type { WebDriver } from 'selenium-webdriver';
import { BadRequest } from '../errors.js';
import { describeSelector, findElement, type Selector } from './selectors.js';
import { givesFile, holdsFile, inPage, isFileInput } from './scripts.js';

/**
 * Sets a file input. The bytes go to the page in the script that hands them to the input (a
 * File in a DataTransfer), never through a file on the browser's machine: a sandboxed browser
 * (embedded-grid/sandbox.ts) sees no file of the node but its own profile, and WebDriver's way
 * (send the path, the browser reads it) would need the node's upload directory, every
 * workspace's, in every browser's view. The page hears `input` and `change`, as it does when a
 * person picks a file.
 */
export async function uploadFile(
  driver: WebDriver,
  selector: Selector,
  file: { name: string; bytes: Uint8Array; type: string },
  waitSeconds: number,
): Promise<void> {
  const element = await findElement(driver, selector, waitSeconds);
  if (!(await driver.executeScript<boolean>(inPage(isFileInput), element))) {
    throw new BadRequest(
      `${describeSelector(selector)} is not a file input; point selector at the <input type="file">, find it with outline.`,
    );
  }
  const given = await driver.executeScript<boolean>(
    inPage(givesFile, { isFileInput }),
    element,
    file.name,
    Buffer.from(file.bytes).toString('base64'),
    file.type,
  );
  // A page can make its file input another field as the file comes (on focus, on a timer, on change).
  if (!given || !(await driver.executeScript<boolean>(inPage(holdsFile, { isFileInput }), element))) {
    throw new BadRequest(
      `${describeSelector(selector)} holds no file after it was given one: the page turned it into another field or emptied it; read the page again with outline, and give the file to the file input it shows now.`,
    );
  }
}
