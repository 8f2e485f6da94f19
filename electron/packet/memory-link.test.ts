import { describe, expect, it } from 'vitest';
import { guardMemoryLink, noBackendLink } from './memory-link.ts';

describe('memory link states', () => {
  it('says no_backend for both calls when there is no backend', async () => {
    expect(await noBackendLink.remember({ slug: 's', goal: '', path: '', repo: '' })).toEqual({ status: 'skipped', reason: 'no_backend' });
    expect(await noBackendLink.recall('s')).toEqual({ status: 'skipped', reason: 'no_backend' });
  });

  it('turns a thrown error into exactly skipped/no_backend, with a detail saying why, instead of an exception', async () => {
    const throwing = guardMemoryLink({
      remember: async () => {
        throw new Error('socket hang up');
      },
      recall: () => Promise.reject(new Error('ECONNREFUSED')),
    });
    expect(await throwing.remember({ slug: 's', goal: '', path: '', repo: '' })).toEqual({
      status: 'skipped',
      reason: 'no_backend',
      detail: 'the account backend did not answer: socket hang up',
    });
    expect(await throwing.recall('s')).toEqual({
      status: 'skipped',
      reason: 'no_backend',
      detail: 'the account backend did not answer: ECONNREFUSED',
    });
  });
});
