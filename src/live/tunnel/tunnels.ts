import type { Tunnel } from './tunnel.js';

/** Every tunnel this server holds open, so a shutdown can tell each viewer why it ends. */
export class Tunnels {
  private readonly open = new Set<Tunnel>();

  add(tunnel: Tunnel): void {
    this.open.add(tunnel);
    tunnel.onEnded(() => this.open.delete(tunnel));
  }

  of(workspace: string): Tunnel[] {
    return [...this.open].filter((t) => t.workspace === workspace);
  }

  get size(): number {
    return this.open.size;
  }

  closeAll(code: number, reason: string): void {
    for (const tunnel of [...this.open]) {
      tunnel.close(code, reason);
    }
  }
}
