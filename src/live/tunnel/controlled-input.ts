import { CLIENT } from './rfb.js';

/**
 * A viewer's input (keys, pointer, clipboard) on its way to the VNC server: it goes on only while
 * the viewer holds Control — Watch is enforced here, not in the page — and the keys and buttons
 * it held are let go when its input is first dropped, so none stays stuck.
 */
export class ControlledInput {
  /** keys and buttons this viewer pressed under Control, let go when its input is dropped */
  private readonly pressed = new Set<number>();
  private pointer = { x: 0, y: 0, buttons: 0 };

  constructor(
    /** whether the viewer holds Control now; asked per message, so it must be cheap */
    private readonly holdsControl: () => boolean | Promise<boolean>,
    private readonly toUpstream: (bytes: Buffer) => void,
  ) {}

  /** One input message (RFC 6143 §7.5.4–7.5.6): on to the server under Control, else dropped. */
  async pass(message: Buffer): Promise<void> {
    const asked = this.holdsControl();
    const holds = typeof asked === 'boolean' ? asked : await asked.catch(() => false);
    if (!holds) {
      this.letGo();
      return;
    }
    if (message[0] === CLIENT.keyEvent) {
      const keysym = message.readUInt32BE(4);
      if (message[1] === 0) {
        this.pressed.delete(keysym);
      } else if (this.pressed.size < 64) {
        this.pressed.add(keysym);
      }
    } else if (message[0] === CLIENT.pointerEvent) {
      this.pointer = { buttons: message[1]!, x: message.readUInt16BE(2), y: message.readUInt16BE(4) };
    }
    this.toUpstream(message);
  }

  /** Control ended with a key or button down: the server hears it let go, not stuck. */
  private letGo(): void {
    for (const keysym of this.pressed) {
      const up = Buffer.alloc(8);
      up.writeUInt8(CLIENT.keyEvent, 0);
      up.writeUInt32BE(keysym, 4);
      this.toUpstream(up);
    }
    this.pressed.clear();
    if (this.pointer.buttons !== 0) {
      this.pointer.buttons = 0;
      const up = Buffer.alloc(6);
      up.writeUInt8(CLIENT.pointerEvent, 0);
      up.writeUInt16BE(this.pointer.x, 2);
      up.writeUInt16BE(this.pointer.y, 4);
      this.toUpstream(up);
    }
  }
}
