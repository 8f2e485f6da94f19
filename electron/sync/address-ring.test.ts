/** The address ring: where a request starts, what it tries next, and that it sticks to what answered. */
import { describe, expect, it } from 'vitest';
import { AddressRing } from './address-ring.ts';

describe('the address ring', () => {
  it('tries the addresses in the order given, the first one first', () => {
    const ring = new AddressRing(['http://a:1/', 'http://b:2', 'http://c:3']);
    expect(ring.current).toBe('http://a:1');
    expect(ring.order()).toEqual(['http://a:1', 'http://b:2', 'http://c:3']);
  });

  it('moves to the next address when the current one fails, wrapping round after the last', () => {
    const ring = new AddressRing(['http://a:1', 'http://b:2', 'http://c:3']);
    ring.failed('http://a:1');
    expect(ring.order()).toEqual(['http://b:2', 'http://c:3', 'http://a:1']);
    ring.failed('http://b:2');
    ring.failed('http://c:3');
    expect(ring.current).toBe('http://a:1');
  });

  it('sticks to the address that answered, even when an earlier one would work again', () => {
    const ring = new AddressRing(['http://a:1', 'http://b:2', 'http://c:3']);
    ring.failed('http://a:1');
    ring.failed('http://b:2');
    ring.answered('http://c:3');
    expect(ring.order()).toEqual(['http://c:3', 'http://a:1', 'http://b:2']);
    ring.answered('http://c:3');
    expect(ring.current).toBe('http://c:3');
  });

  it('ignores the failure of an address that is not current (a request still in flight on an old one)', () => {
    const ring = new AddressRing(['http://a:1', 'http://b:2']);
    ring.answered('http://b:2');
    ring.failed('http://a:1');
    expect(ring.current).toBe('http://b:2');
  });

  it('replaces its addresses, starts again at the first and tells its listeners', () => {
    const ring = new AddressRing(['http://a:1', 'http://b:2']);
    ring.answered('http://b:2');
    let told = 0;
    const stop = ring.onReplaced(() => told++);
    ring.replace(['http://c:3', 'http://d:4', 'http://c:3/']);
    expect([ring.order(), told]).toEqual([['http://c:3', 'http://d:4'], 1]);
    stop();
    ring.replace(['http://e:5']);
    expect(told).toBe(1);
    expect(() => ring.replace([])).toThrow(/at least one backend address/);
  });
});
