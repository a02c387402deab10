import type { Alert, WebDriver } from 'selenium-webdriver';
import { wdError } from './webdriver.js';
import { BadRequest, NotFound } from '../errors.js';
import { poll } from '../poll.js';

export type DialogAction = 'accept' | 'dismiss';

// A click may open a dialog a moment later (a timer, a fetch): wait briefly for it rather
// than failing a caller that asked too early.
const DIALOG_WAIT_MS = 2000;

export async function answerDialog(driver: WebDriver, action: DialogAction, text: string | undefined): Promise<string> {
  const message = await poll(
    async () => {
      try {
        const alert = await driver.switchTo().alert();
        const message = await alert.getText();
        if (text !== undefined) {
          await answerPrompt(alert, text);
        }
        await (action === 'accept' ? alert.accept() : alert.dismiss());
        return message;
      } catch (err) {
        if (err instanceof wdError().NoSuchAlertError) {
          return undefined;
        }
        throw err;
      }
    },
    DIALOG_WAIT_MS,
    100,
  );
  if (message === undefined) {
    throw new NotFound('No dialog is open; call dialog right after the action that opens one.');
  }
  return message;
}

/** The message of the dialog open now, if one is: asked without waiting, and without answering it. */
export async function openDialogMessage(driver: WebDriver): Promise<string | undefined> {
  try {
    return await driver.switchTo().alert().getText();
  } catch (err) {
    if (err instanceof wdError().NoSuchAlertError) {
      return undefined;
    }
    throw err;
  }
}

async function answerPrompt(alert: Alert, text: string): Promise<void> {
  try {
    await alert.sendKeys(text);
  } catch (err) {
    // WebDriver says "not interactable" when the dialog has no text box: an alert or a confirm.
    if (err instanceof wdError().ElementNotInteractableError || err instanceof wdError().UnsupportedOperationError) {
      throw new BadRequest(
        'Only a prompt takes text, and this dialog is an alert or a confirm; call dialog again without text.',
      );
    }
    throw err;
  }
}
