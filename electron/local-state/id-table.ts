/**
 * A set of entry ids kept in typed arrays, each id numbered in the order it was added, with one
 * flag per id: what a Move's merge remembers of a transcript of hundreds of thousands of entries.
 * A JavaScript Map of that many strings costs tens of MiB of small objects the collector keeps
 * walking; here the ids' UTF-16 code units sit in one growing array, found through an
 * open-addressing table of their numbers, so the whole costs a few bytes over the ids' own length.
 */

const EMPTY = -1;

/** FNV-1a over the id's UTF-16 code units (32 bits). */
export function hashOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

export class IdTable {
  private units: Uint16Array;
  private used = 0;
  /** `starts[n]`: where id `n` begins in `units` (`starts[size]`: where the next will). */
  private starts: Uint32Array;
  private slots: Int32Array;
  private flags: Uint8Array;
  /** How many ids it holds. */
  size = 0;

  /** `expected`: about how many ids it will hold (sized for them at once, so it seldom grows). */
  constructor(expected = 0) {
    const ids = Math.max(256, expected + 1);
    this.units = new Uint16Array(ids * 24);
    this.starts = new Uint32Array(ids + 1);
    this.flags = new Uint8Array(ids);
    let slots = 512;
    while (slots < ids * 2) slots *= 2;
    this.slots = new Int32Array(slots).fill(EMPTY);
  }

  /** Whether it holds `id`. */
  has(id: string): boolean {
    return this.slots[this.find(id)] !== EMPTY;
  }

  /** Adds `id` (unflagged) unless it is held already. */
  add(id: string): void {
    const slot = this.find(id);
    if (this.slots[slot] !== EMPTY) return;
    const n = this.size;
    if (this.used + id.length > this.units.length) this.units = grow(this.units, this.used + id.length);
    for (let i = 0; i < id.length; i++) this.units[this.used + i] = id.charCodeAt(i);
    this.used += id.length;
    if (n + 2 > this.starts.length) this.starts = grow(this.starts, n + 2);
    if (n + 1 > this.flags.length) this.flags = grow(this.flags, n + 1);
    this.starts[n + 1] = this.used;
    this.slots[slot] = n;
    this.size = n + 1;
    if (this.size * 2 > this.slots.length) this.rehash();
  }

  /** Whether `id` is held and flagged. */
  flagged(id: string): boolean {
    const n = this.slots[this.find(id)]!;
    return n !== EMPTY && this.flags[n] === 1;
  }

  /** Flags `id`, when it is held. */
  flag(id: string): void {
    const n = this.slots[this.find(id)]!;
    if (n !== EMPTY) this.flags[n] = 1;
  }

  /** The slot holding `id`, or the empty slot where it would go. */
  private find(id: string): number {
    const mask = this.slots.length - 1;
    for (let slot = hashOf(id) & mask; ; slot = (slot + 1) & mask) {
      const n = this.slots[slot]!;
      if (n === EMPTY || this.equals(n, id)) return slot;
    }
  }

  private equals(n: number, id: string): boolean {
    const start = this.starts[n]!;
    if (this.starts[n + 1]! - start !== id.length) return false;
    for (let i = 0; i < id.length; i++) if (this.units[start + i] !== id.charCodeAt(i)) return false;
    return true;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(EMPTY);
    const mask = slots.length - 1;
    for (let n = 0; n < this.size; n++) {
      let hash = 0x811c9dc5;
      for (let i = this.starts[n]!; i < this.starts[n + 1]!; i++) hash = Math.imul(hash ^ this.units[i]!, 0x01000193);
      let slot = (hash >>> 0) & mask;
      while (slots[slot] !== EMPTY) slot = (slot + 1) & mask;
      slots[slot] = n;
    }
    this.slots = slots;
  }
}

/** A copy of `array` with room for at least `needed` elements (doubling). */
function grow<T extends Uint16Array | Uint32Array | Uint8Array>(array: T, needed: number): T {
  let length = array.length * 2;
  while (length < needed) length *= 2;
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array);
  return next;
}
