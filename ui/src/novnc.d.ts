/**
 * The part of noVNC's RFB object (docs/API.md of @novnc/novnc) this page uses: the package
 * ships plain JavaScript without types, so its door is declared here once.
 */
declare module '@novnc/novnc' {
  export default class RFB extends EventTarget {
    constructor(target: HTMLElement, channel: WebSocket, options?: { shared?: boolean });
    viewOnly: boolean;
    scaleViewport: boolean;
    focusOnClick: boolean;
    background: string;
    focus(): void;
    blur(): void;
    disconnect(): void;
    sendKey(keysym: number, code: string | null, down?: boolean): void;
    addEventListener(
      type: 'securityfailure',
      listener: (event: CustomEvent<{ status: number; reason?: string }>) => void,
    ): void;
    addEventListener(type: 'connect' | 'disconnect' | 'credentialsrequired', listener: (event: Event) => void): void;
  }
}
