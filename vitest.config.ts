import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Workers inherit these; without them selenium-webdriver's driver manager reaches for the internet.
process.env.SE_OFFLINE = 'true';
process.env.SE_AVOID_STATS = 'true';
// serve and stdio keep flows in the XDG data home when FLOW_DATA_DIR is unset: a run has its own.
const dataHome = mkdtempSync(join(tmpdir(), 'selenium-flow-test-home-'));
process.env.XDG_DATA_HOME = dataHome;
process.once('exit', () => rmSync(dataHome, { recursive: true, force: true }));

/** The suites the `firefox` project runs once more with TEST_BROWSER=firefox. */
const FIREFOX_SUITES = [
  'tools-session',
  'tools-interact',
  'tools-frames-dialogs',
  'tools-write',
  'tools-read',
  'files',
  'bad-input',
  'secrets',
  'secrets-leak',
  'secrets-hostile',
  'flows',
  'flow-steps',
];
/** …and the BiDi monitor's: network capture and the pages a person is followed to. */
const FIREFOX_MONITOR_SUITES = ['network', 'network-capture', 'bidi-monitor', 'await-control', 'browser-failures'];

export default defineConfig({
  test: {
    pool: 'forks',
    // Two cores, and a test file may hold several browsers on the shared Grid.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // `npm test -- --project unit` runs without a Grid; only integration starts one.
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          // The browser matrix: the browser suites again, on Firefox (docs/browsers.md), on the same Grid.
          name: 'firefox',
          include: [...FIREFOX_SUITES, ...FIREFOX_MONITOR_SUITES].map((suite) => `test/integration/${suite}.test.ts`),
          env: { TEST_BROWSER: 'firefox' },
          globalSetup: ['test/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          // The admin page in a real Chromium (playwright-core), against a real server and Grid.
          name: 'ui',
          include: ['test/ui/**/*.test.ts'],
          globalSetup: ['test/ui/build-page.ts', 'test/global-setup.ts'],
        },
      },
    ],
  },
});
