import { createRequire } from 'node:module';
import type * as Selenium from 'selenium-webdriver';
import type SeleniumBiDi from 'selenium-webdriver/bidi/index.js';
import type * as SeleniumHttp from 'selenium-webdriver/http/index.js';
import type * as SeleniumCommand from 'selenium-webdriver/lib/command.js';
import type * as SeleniumRemote from 'selenium-webdriver/remote/index.js';

// The one door to selenium-webdriver's values (types are imported as types, anywhere). Loaded at
// its first use, not at boot: it is ~70 ms of a cold start (its ~75 modules, jszip and ws among
// them), and a server that lists its tools, or answers a call that opens no browser, never needs
// it (issue 17: spawn → tools/list). Every caller holds a WebDriver or is about to make one, so
// the first use is opening a browser. selenium-webdriver is CommonJS: `require` is synchronous,
// cached, and yields the same module instance an `import` does, so `instanceof error.X` holds
// whichever way a module (or a test) loaded it.
const load = createRequire(import.meta.url);

/** Each module this door opens, by the id `require` knows it by. */
interface Modules {
  'selenium-webdriver': typeof Selenium;
  'selenium-webdriver/http/index.js': typeof SeleniumHttp;
  'selenium-webdriver/lib/command.js': typeof SeleniumCommand;
  'selenium-webdriver/remote/index.js': typeof SeleniumRemote;
  'selenium-webdriver/bidi/index.js': typeof SeleniumBiDi;
}

/** `require` answers `any`: the one place its answer is given the type its `import type` names. */
function loaded<Id extends keyof Modules>(id: Id): Modules[Id] {
  return load(id) as Modules[Id];
}

export function selenium(): typeof Selenium {
  return loaded('selenium-webdriver');
}

/** selenium-webdriver's error classes, for `instanceof`. */
export function wdError(): typeof Selenium.error {
  return selenium().error;
}

export function seleniumHttp(): typeof SeleniumHttp {
  return loaded('selenium-webdriver/http/index.js');
}

export function seleniumCommand(): typeof SeleniumCommand {
  return loaded('selenium-webdriver/lib/command.js');
}

export function seleniumRemote(): typeof SeleniumRemote {
  return loaded('selenium-webdriver/remote/index.js');
}

export function seleniumBiDi(): typeof SeleniumBiDi {
  return loaded('selenium-webdriver/bidi/index.js');
}
