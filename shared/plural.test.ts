import { describe, expect, it } from 'vitest';
import { counted, themOrIt } from './plural.ts';

describe('counts in words', () => {
  it('says one of a thing in the singular and any other number in the plural', () => {
    expect(counted(1, 'changed file')).toBe('1 changed file');
    expect(counted(2, 'changed file')).toBe('2 changed files');
    expect(counted(0, 'commit')).toBe('0 commits');
    expect(counted(3, 'repository', 'repositories')).toBe('3 repositories');
    expect([themOrIt(1), themOrIt(4)]).toEqual(['it', 'them']);
  });
});
