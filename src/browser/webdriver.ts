import { createRequire } from 'node:module';
import type * as Selenium from 'selenium-webdriver';
import type SeleniumBiDi from 'selenium-webdriver/bidi/index.js';
import type * as SeleniumHttp from 'selenium-webdriver/http/index.js';
import type * as SeleniumCommand from 'selenium-webdriver/lib/command.js';

// The one door to selenium-webdriver's values (types are imported as types, anywhere). Loaded at
// its first use, not at boot: a server that lists its tools, or answers a call that opens no
// browser, never needs it (issue 17: spawn → tools/list). The first use is opening a browser, and
// its heavy part, the WebDriver class, loads while the Grid starts that browser (grid/new-session.ts).
// selenium-webdriver is CommonJS: `require` is synchronous, cached, and yields the same module
// instance an `import` does, so `instanceof error.X` holds whichever way a module (or a test)
// loaded it.
const load = createRequire(import.meta.url);

/**
 * Each module this door opens, by the id `require` knows it by. Its modules one by one, not its
 * index: the index also loads every browser's driver service and Selenium Manager's launcher
 * (27 modules, ~16 ms of compiling on Node 20), which a Grid's client never runs.
 */
interface Modules {
  'selenium-webdriver/lib/webdriver.js': Pick<typeof Selenium, 'WebDriver'>;
  'selenium-webdriver/lib/session.js': Pick<typeof Selenium, 'Session'>;
  'selenium-webdriver/lib/capabilities.js': Pick<typeof Selenium, 'Capabilities'>;
  'selenium-webdriver/lib/by.js': Pick<typeof Selenium, 'By'>;
  'selenium-webdriver/lib/input.js': Pick<typeof Selenium, 'Key'>;
  'selenium-webdriver/lib/error.js': typeof Selenium.error;
  'selenium-webdriver/http/index.js': typeof SeleniumHttp;
  'selenium-webdriver/lib/command.js': typeof SeleniumCommand;
  'selenium-webdriver/bidi/index.js': typeof SeleniumBiDi;
}

/** `require` answers `any`: the one place its answer is given the type its `import type` names. */
function loaded<Id extends keyof Modules>(id: Id): Modules[Id] {
  return load(id) as Modules[Id];
}

/** What the server drives browsers with. */
export type SeleniumValues = Pick<typeof Selenium, 'WebDriver' | 'Session' | 'Capabilities' | 'By' | 'Key' | 'error'>;

let values: SeleniumValues | undefined;

export function selenium(): SeleniumValues {
  values ??= {
    WebDriver: loaded('selenium-webdriver/lib/webdriver.js').WebDriver,
    Session: loaded('selenium-webdriver/lib/session.js').Session,
    Capabilities: loaded('selenium-webdriver/lib/capabilities.js').Capabilities,
    By: loaded('selenium-webdriver/lib/by.js').By,
    Key: loaded('selenium-webdriver/lib/input.js').Key,
    error: loaded('selenium-webdriver/lib/error.js'),
  };
  return values;
}

/** selenium-webdriver's error classes, for `instanceof`. */
export function wdError(): typeof Selenium.error {
  return loaded('selenium-webdriver/lib/error.js');
}

/** The Session class alone: the new session's answer is one, before the WebDriver class has loaded. */
export function seleniumSession(): typeof Selenium.Session {
  return loaded('selenium-webdriver/lib/session.js').Session;
}

export function seleniumHttp(): typeof SeleniumHttp {
  return loaded('selenium-webdriver/http/index.js');
}

export function seleniumCommand(): typeof SeleniumCommand {
  return loaded('selenium-webdriver/lib/command.js');
}

export function seleniumBiDi(): typeof SeleniumBiDi {
  return loaded('selenium-webdriver/bidi/index.js');
}
