import WebSocket from 'ws';

/**
 * A small RFB (RFC 6143) client over a websocket, as a viewer other than noVNC would speak it:
 * the 3.8 handshake with security None, then raw key and pointer events, and a framebuffer
 * read in Raw encoding. The tests drive the live tunnel with it byte by byte.
 */
export class RfbClient {
  private chunks: Buffer[] = [];
  private size = 0;
  private waiting: (() => void) | undefined;
  readonly closed: Promise<{ code: number; reason: string }>;
  width = 0;
  height = 0;
  private bytesPerPixel = 4;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      this.chunks.push(data);
      this.size += data.length;
      this.waiting?.();
    });
    this.closed = new Promise((resolve) => {
      ws.once('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.waiting?.();
      });
    });
  }

  /** Opens the websocket; the handshake is `handshake()`, so a test can watch a tunnel that never greets. */
  static open(url: string): Promise<RfbClient> {
    const ws = new WebSocket(url);
    const client = new RfbClient(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
      ws.once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
    });
  }

  /** The whole handshake: version 3.8, security None, shared; answers the desktop's name. */
  async handshake(): Promise<string> {
    const version = (await this.read(12)).toString('latin1');
    if (version !== 'RFB 003.008\n') {
      throw new Error(`the tunnel greeted ${JSON.stringify(version)}`);
    }
    this.send(Buffer.from(version, 'latin1'));
    const count = (await this.read(1))[0]!;
    const types = [...(await this.read(count))];
    if (!types.includes(1)) {
      throw new Error(`the tunnel offered security types ${types.join(',')}, not None`);
    }
    this.send(Buffer.from([1]));
    if ((await this.read(4)).readUInt32BE(0) !== 0) {
      throw new Error('the tunnel refused security None');
    }
    this.send(Buffer.from([1]));
    const init = await this.read(24);
    this.width = init.readUInt16BE(0);
    this.height = init.readUInt16BE(2);
    this.bytesPerPixel = init[4]! / 8;
    return (await this.read(init.readUInt32BE(20))).toString('latin1');
  }

  key(keysym: number, down: boolean): void {
    const message = Buffer.alloc(8);
    message.writeUInt8(4, 0);
    message.writeUInt8(down ? 1 : 0, 1);
    message.writeUInt32BE(keysym, 4);
    this.send(message);
  }

  /** A key pressed and let go, for each character (ASCII keysyms are the characters). */
  type(text: string): void {
    for (const char of text) {
      this.key(char.charCodeAt(0), true);
      this.key(char.charCodeAt(0), false);
    }
  }

  pointer(x: number, y: number, buttons = 0): void {
    const message = Buffer.alloc(6);
    message.writeUInt8(5, 0);
    message.writeUInt8(buttons, 1);
    message.writeUInt16BE(x, 2);
    message.writeUInt16BE(y, 4);
    this.send(message);
  }

  click(x: number, y: number): void {
    this.pointer(x, y, 0);
    this.pointer(x, y, 1);
    this.pointer(x, y, 0);
  }

  /** Sends raw bytes, for what no method here would send. */
  send(bytes: Buffer): void {
    this.ws.send(bytes);
  }

  /** How many distinct pixel values a region of the screen holds: one is a blank screen. */
  async colours(x: number, y: number, width: number, height: number): Promise<number> {
    return new Set(await this.pixels(x, y, width, height)).size;
  }

  /** The pixel value a region shows most (the server's format, as hex): what fills it. */
  async mostly(x: number, y: number, width: number, height: number): Promise<string> {
    const counts = new Map<string, number>();
    for (const pixel of await this.pixels(x, y, width, height)) {
      counts.set(pixel, (counts.get(pixel) ?? 0) + 1);
    }
    return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
  }

  /** A region's pixels, asked in Raw encoding only (in the server's pixel format), as hex values. */
  private async pixels(x: number, y: number, width: number, height: number): Promise<string[]> {
    const encodings = Buffer.alloc(8);
    encodings.writeUInt8(2, 0);
    encodings.writeUInt16BE(1, 2);
    encodings.writeInt32BE(0, 4);
    this.send(encodings);
    const request = Buffer.alloc(10);
    request.writeUInt8(3, 0);
    request.writeUInt8(0, 1);
    request.writeUInt16BE(x, 2);
    request.writeUInt16BE(y, 4);
    request.writeUInt16BE(width, 6);
    request.writeUInt16BE(height, 8);
    this.send(request);
    const seen: string[] = [];
    for (;;) {
      const type = (await this.read(1))[0];
      if (type === 2) {
        continue; // Bell
      }
      if (type === 3) {
        const length = (await this.read(7)).readUInt32BE(3);
        await this.read(length);
        continue; // ServerCutText
      }
      if (type !== 0) {
        throw new Error(`unexpected server message ${type}`);
      }
      const rects = (await this.read(3)).readUInt16BE(1);
      for (let i = 0; i < rects; i++) {
        const head = await this.read(12);
        const w = head.readUInt16BE(4);
        const h = head.readUInt16BE(6);
        const encoding = head.readInt32BE(8);
        if (encoding !== 0) {
          throw new Error(`the server answered encoding ${encoding}, not Raw`);
        }
        const pixels = await this.read(w * h * this.bytesPerPixel);
        for (let p = 0; p < pixels.length; p += this.bytesPerPixel) {
          seen.push(pixels.subarray(p, p + this.bytesPerPixel).toString('hex'));
        }
      }
      return seen;
    }
  }

  close(): void {
    this.ws.close();
  }

  private async read(n: number): Promise<Buffer> {
    while (this.size < n) {
      if (this.ws.readyState === WebSocket.CLOSED) {
        throw new Error(`the tunnel closed with ${this.size} of ${n} bytes read`);
      }
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = undefined;
    }
    const all = Buffer.concat(this.chunks, this.size);
    this.chunks = [all.subarray(n)];
    this.size -= n;
    return all.subarray(0, n);
  }
}
