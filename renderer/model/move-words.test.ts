import { describe, expect, it } from 'vitest';
import { historyTo, handoffIn } from '../test-support/views.ts';
import { cancelSentence, currentStepIndex, formatElapsedTime, humanSteps, keptSentence, stepStarts, waitingFor } from './move-words.ts';

const steps = humanSteps({ sourceName: 'laptop', targetName: 'desktop' });
const cancelled = (code: string, message = '', last: 'requested' | 'target-prepared' = 'requested') =>
  handoffIn(last, { state: 'cancelled', cancelReason: { code, message } });

describe('a move in plain words', () => {
  it('folds the seven states into five steps named for the devices', () => {
    expect(steps.map((step) => step.label)).toEqual([
      'Preparing desktop',
      'Pausing on laptop',
      'Handing over',
      'Resuming on desktop',
      'Done',
    ]);
    expect(steps.flatMap((step) => step.states)).toHaveLength(7);
  });

  it('makes the hand-over current once the upload begins, though the state is still the pause', () => {
    const upload = {
      handoffId: 'h1',
      sessionId: 's1',
      step: 'upload' as const,
      label: 'checkpoint',
      doneBytes: 1,
      totalBytes: 2,
      percent: 50,
      at: 5,
    };
    expect(currentStepIndex(steps, 'source-quiescing', undefined)).toBe(1);
    expect(currentStepIndex(steps, 'source-quiescing', upload)).toBe(2);
    expect(currentStepIndex(steps, 'cancelled', upload)).toBe(-1);
  });

  it('starts each step at the first of its states reached', () => {
    const history = historyTo('source-quiescing');
    expect(stepStarts(steps, handoffIn('source-quiescing'), null)).toEqual([
      history[0]!.at,
      history[1]!.at,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('says what each step waits for and what to check', () => {
    expect(waitingFor(steps[0]!, 'requested', { sourceName: 'laptop', targetName: 'desktop' })).toBe(
      'Waiting for desktop to answer — is Baton running there and online?',
    );
    expect(waitingFor(steps[1]!, 'source-quiescing', { sourceName: 'laptop', targetName: 'desktop' })).toContain(
      "agent's turn to end on laptop",
    );
  });

  it('says why a move stopped in a sentence, never by its code', () => {
    expect(cancelSentence(cancelled('user_cancelled'))).toBe('The move to desktop was cancelled.');
    expect(cancelSentence(cancelled('target_timeout'))).toMatch(/^desktop did not get ready in time/);
    expect(cancelSentence(cancelled('target_timeout', '', 'target-prepared'))).toMatch(/^desktop did not take the session in time/);
    expect(cancelSentence(cancelled('target_missing_provider', 'desktop does not have Claude Code.'))).toBe(
      'desktop could not take the session: desktop does not have Claude Code.',
    );
    expect(keptSentence(cancelled('user_cancelled'))).toBe('The session stays on laptop; nothing was lost.');
  });

  it('names the target, not the source, when the target refused with blockers of its own', () => {
    const message = 'desktop cannot get main of http://builder:***@127.0.0.1:9/acme/app.git';
    const blockers = [{ code: 'target_cannot_open_workspace' as const, message, fix: 'Check the remote.' }];
    const refused = { ...cancelled('target_cannot_open_workspace', message), blockers };
    expect(cancelSentence(refused)).toBe(`desktop could not take the session: ${message}`);
    const changed = { ...cancelled('source_changed'), blockers: [{ code: 'dirty_tree' as const, message: 'x', fix: 'y' }] };
    expect(cancelSentence(changed)).toMatch(/^Something changed on laptop while the move was prepared/);
  });

  it('reads an elapsed time in tenths of a second, then seconds, then minutes', () => {
    expect(formatElapsedTime(420)).toBe('0.4 s');
    expect(formatElapsedTime(12_400)).toBe('12 s');
    expect(formatElapsedTime(185_000)).toBe('3 min 05 s');
    expect(formatElapsedTime(-5)).toBe('0.0 s');
  });
});
