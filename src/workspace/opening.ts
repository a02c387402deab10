/** Opens in flight in this process, per owner, so parallel opens cannot all slip under the cap. */
export class OpensInFlight {
  private readonly counts = new Map<string, number>();

  of(owner: string): number {
    return this.counts.get(owner) ?? 0;
  }

  /** Counts `work` against `owner` while it runs. */
  async during<T>(owner: string, work: () => Promise<T>): Promise<T> {
    this.counts.set(owner, this.of(owner) + 1);
    try {
      return await work();
    } finally {
      const left = this.of(owner) - 1;
      if (left > 0) {
        this.counts.set(owner, left);
      } else {
        this.counts.delete(owner);
      }
    }
  }
}
