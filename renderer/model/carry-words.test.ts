import { describe, expect, it } from 'vitest';
import type { CarryOffer } from '../../shared/carry.ts';
import type { Blocker, ReadinessReport } from '../../shared/readiness.ts';
import { carriedSentences, carryableOffer, carryOfferSentence } from './carry-words.ts';

const offer: CarryOffer = {
  changed: 3,
  added: 1,
  deleted: 0,
  commits: 2,
  secretFiles: [],
  estimatedBytes: 1200,
  largest: [],
  repos: ['/home/me/web'],
};
const dirty: Blocker = { code: 'dirty_tree', message: 'm', fix: 'f', carryable: true };
const report = (blockers: Blocker[], carry: CarryOffer | undefined = offer): ReadinessReport => ({
  ready: blockers.length === 0,
  blockers,
  repos: [],
  evaluatedAt: 1,
  ...(carry ? { carry } : {}),
});

describe('carry words', () => {
  it('offers carrying when every blocker here is one it resolves or a file to confirm, whatever the target says', () => {
    expect(carryableOffer(report([dirty, { code: 'target_offline', message: 'm', fix: 'f' }]))).toBe(offer);
    expect(carryableOffer(report([{ code: 'carry_unconfirmed_files', message: 'm', fix: 'f' }]))).toBe(offer);
  });

  it('does not offer it when something carrying cannot fix blocks too, or when there is nothing to carry', () => {
    expect(carryableOffer(report([dirty, { code: 'operation_in_progress', message: 'm', fix: 'f' }]))).toBeNull();
    expect(carryableOffer(report([dirty, { code: 'carry_too_large', message: 'm', fix: 'f' }]))).toBeNull();
    expect(carryableOffer(report([{ code: 'dirty_tree', message: 'm', fix: 'f' }], undefined))).toBeNull();
    expect(carryableOffer(report([]))).toBeNull();
  });

  it('says what carrying takes, sealed', () => {
    expect(carryOfferSentence(offer)).toBe(
      'Takes 3 changed files, 1 new file, 2 unpushed commits along, sealed: only your devices can open it.',
    );
  });

  it('says on each side what came along and where the source keeps its copy', () => {
    const carried = { ...offer, repos: ['.'], keptAs: 'baton: carried to desk at 18:05 (handoff h1)' };
    expect(carriedSentences({ ...carried, parked: null }, true, 'laptop')).toEqual([
      'Your changes came along: 3 changed files, 1 new file, 2 unpushed commits, still uncommitted here as they were on laptop.',
      'laptop keeps its copy in the stash “baton: carried to desk at 18:05 (handoff h1)”.',
    ]);
    expect(carriedSentences({ ...carried, parked: { ok: true } }, false, 'laptop')[1]).toBe(
      'Your copy here is kept in the stash “baton: carried to desk at 18:05 (handoff h1)” (git stash list shows it).',
    );
    expect(carriedSentences({ ...carried, parked: { ok: false, message: 'git stash failed.' } }, false, 'laptop')[1]).toBe(
      'Your copy here could not be put in a stash, so it is still in your checkout: git stash failed.',
    );
  });
});
