/**
 * The backend addresses a device uses, in order, and the one it sticks to. A request starts at the
 * current address and goes on to the next ones in order (wrapping round); the address that answers
 * becomes current, so a device stays on an instance that works and moves on only when it fails.
 */

export class AddressRing {
  private list: string[];
  private index = 0;
  private readonly listeners = new Set<() => void>();

  /** `urls`: at least one address (trailing slashes are dropped, duplicates kept once). */
  constructor(urls: readonly string[]) {
    this.list = AddressRing.normalise(urls);
  }

  private static normalise(urls: readonly string[]): string[] {
    const list = [...new Set(urls.map((url) => url.replace(/\/+$/, '')))];
    if (list.length === 0) throw new Error('a device needs at least one backend address');
    return list;
  }

  /** Every address, in the order given. */
  get urls(): readonly string[] {
    return this.list;
  }

  /** The address requests go to first. */
  get current(): string {
    return this.list[this.index]!;
  }

  /** The addresses to try for one request: the current one, then the others in order after it. */
  order(): string[] {
    return [...this.list.slice(this.index), ...this.list.slice(0, this.index)];
  }

  /** `url` answered: it becomes the current address. */
  answered(url: string): void {
    const at = this.list.indexOf(url);
    if (at >= 0) this.index = at;
  }

  /** `url` failed: when it is the current address, the next one becomes current. */
  failed(url: string): void {
    if (this.list[this.index] === url) this.index = (this.index + 1) % this.list.length;
  }

  /** Replaces the addresses (the first becomes current) and tells the listeners. */
  replace(urls: readonly string[]): void {
    this.list = AddressRing.normalise(urls);
    this.index = 0;
    for (const listener of [...this.listeners]) listener();
  }

  /** Calls `listener` after every replace; returns its unsubscribe. */
  onReplaced(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
