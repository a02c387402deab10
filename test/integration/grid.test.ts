import { Builder, By, type WebDriver } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { browserCapabilities, LIVE_VIEW_CAPABILITY } from '../../src/grid/capabilities.js';

describe('the embedded Grid', () => {
  const siteUrl = inject('siteUrl');
  let driver: WebDriver;

  beforeAll(async () => {
    driver = await new Builder()
      .usingServer(inject('gridUrl'))
      .withCapabilities({
        ...browserCapabilities('chrome', { width: 1280, height: 900 }),
        // A headless slot: the one watchable slot would run it headed.
        [LIVE_VIEW_CAPABILITY]: false,
      })
      .build();
  });

  afterAll(async () => {
    await driver?.quit();
  });

  it('runs a real Chromium that reads the 50-row fixture table', async () => {
    await driver.get(`${siteUrl}/table.html`);
    const rows = await driver.findElements(By.css('#data tbody tr'));
    expect(rows).toHaveLength(50);
    expect(await rows[49]?.getText()).toBe('50 Item 50 150 EUR');
  });

  it('serves a heavy page of about 1,500 elements with its form', async () => {
    await driver.get(`${siteUrl}/heavy.html`);
    const elementCount: unknown = await driver.executeScript('return document.querySelectorAll("*").length');
    expect(elementCount).toBeGreaterThan(1_400);
    expect(elementCount).toBeLessThan(1_600);
    expect(await driver.findElements(By.css('#profile label'))).toHaveLength(8);
    expect(await driver.findElements(By.css('#profile button'))).toHaveLength(3);
  });
});
