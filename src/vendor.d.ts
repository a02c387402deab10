// selenium-webdriver has no `exports` map, so Node's ESM loader needs the file path; its
// types live under the directory name.
declare module 'selenium-webdriver/http/index.js' {
  export { Executor, HttpClient } from '@types/selenium-webdriver/http.js';
}

declare module 'selenium-webdriver/remote/index.js' {
  export { FileDetector } from '@types/selenium-webdriver/remote.js';
}
