import { describe, expect, it } from 'vitest';
import type { Blocker } from '../../shared/readiness.ts';
import { blockerSummary, counted, isTargetBlocker, sourceBlockers } from './readiness-words.ts';

const dirty = (fileCount: number): Blocker => ({ code: 'dirty_tree', message: 'x', fix: 'y', details: { fileCount } });
const ahead = (n: number): Blocker => ({ code: 'unpushed_commits', message: 'x', fix: 'y', details: { ahead: n } });
const offline: Blocker = { code: 'target_offline', message: 'desktop has not been seen in the last 15 seconds.', fix: 'z' };

describe('readiness in a few words', () => {
  it('counts a noun in the singular for one and the plural otherwise', () => {
    expect(counted(1, 'file')).toBe('1 file');
    expect(counted(0, 'file')).toBe('0 files');
    expect(counted(2, 'commit')).toBe('2 commits');
  });

  it('sums up blockers as "1 uncommitted file · 1 unpushed commit"', () => {
    expect(blockerSummary([dirty(1), ahead(1)])).toBe('1 uncommitted file · 1 unpushed commit');
    expect(blockerSummary([dirty(3), ahead(2)])).toBe('3 uncommitted files · 2 unpushed commits');
  });

  it('words a blocker it has no words of its own for by its sentence, without the full stop', () => {
    expect(blockerSummary([offline])).toBe('desktop has not been seen in the last 15 seconds');
  });

  it('words a blocked checkout on the target in a few words naming the device, not its whole sentence again', () => {
    const checkout = {
      code: 'target_workspace_dirty' as const,
      message: "laptop's checkout /src/app, which this session continues in there, has 2 uncommitted changes.",
      fix: 'Stash them.',
      details: { device: 'laptop', fileCount: 2 },
    };
    expect(blockerSummary([checkout])).toBe("2 uncommitted changes in laptop's checkout");
    expect(blockerSummary([{ ...checkout, code: 'target_branch_diverged', details: { device: 'laptop' } }])).toBe(
      "local commits in laptop's checkout",
    );
  });

  it("tells the target's blockers from this device's", () => {
    expect(isTargetBlocker(offline)).toBe(true);
    expect(sourceBlockers([dirty(1), offline, ahead(1)]).map((b) => b.code)).toEqual(['dirty_tree', 'unpushed_commits']);
  });
});
