// selenium-webdriver has no `exports` map, so Node's ESM loader needs the file path; its
// types live under the directory name.
declare module 'selenium-webdriver/http/index.js' {
  export { Executor, HttpClient } from '@types/selenium-webdriver/http.js';
}

declare module 'selenium-webdriver/remote/index.js' {
  export { FileDetector } from '@types/selenium-webdriver/remote.js';
}

// The BiDi connection class; its published types (4.35) lack the socket and send().
declare module 'selenium-webdriver/bidi/index.js' {
  import type { EventEmitter } from 'node:events';
  import type WebSocket from 'ws';
  export default class BiDi extends EventEmitter {
    constructor(webSocketUrl: string);
    readonly socket: WebSocket;
    waitForConnection(): Promise<void>;
    send(command: { method: string; params: object }): Promise<Record<string, unknown>>;
    close(): Promise<void>;
  }
}
