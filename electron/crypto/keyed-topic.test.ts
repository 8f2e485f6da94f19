import { describe, expect, it } from 'vitest';
import { generateAdk, KeyRing } from './key-ring.ts';
import { keyedTopic } from './keyed-topic.ts';

describe('keyed topics', () => {
  it('gives the same hex tag on every device of the account, also after a rotation', () => {
    const v1 = generateAdk();
    const a = new KeyRing([[1, v1]]);
    const b = new KeyRing([
      [1, v1],
      [2, generateAdk()],
    ]);
    const tag = keyedTopic(a, 'memory', 'feature/login');
    expect(tag).toMatch(/^[0-9a-f]{64}$/);
    expect(keyedTopic(b, 'memory', 'feature/login')).toBe(tag);
  });

  it('differs per account key, label and value, and is null without a key', () => {
    const ring = new KeyRing([[1, generateAdk()]]);
    const tag = keyedTopic(ring, 'memory', 'main');
    expect(keyedTopic(new KeyRing([[1, generateAdk()]]), 'memory', 'main')).not.toBe(tag);
    expect(keyedTopic(ring, 'other', 'main')).not.toBe(tag);
    expect(keyedTopic(ring, 'memory', 'dev')).not.toBe(tag);
    expect(keyedTopic(new KeyRing(), 'memory', 'main')).toBeNull();
  });
});
