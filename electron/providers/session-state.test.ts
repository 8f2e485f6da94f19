/**
 * A turn's caps: past TURN_ENTRIES_MAX entries, its text cap or TURN_ASKS_MAX requests, nothing more
 * of the turn is kept or reported, the cap is told once, and Baton's own notes still pass; the next
 * turn counts afresh.
 */
import { describe, expect, it } from 'vitest';
import type { ProviderEvent } from '../../shared/provider.ts';
import { PendingAsks } from './permissions/pending-asks.ts';
import { SessionState, TURN_ASKS_MAX, TURN_ENTRIES_MAX, TURN_TEXT_MAX } from './session-state.ts';

function state() {
  const s = new SessionState(() => 1, 'test');
  const events: ProviderEvent[] = [];
  const capped: string[] = [];
  s.subscribe((e) => events.push(e));
  s.onTurnCap = (why) => capped.push(why);
  return { s, events, capped };
}

describe('a turn’s caps', () => {
  it('keeps no entry past the entry cap, tells it once, lets Baton’s note through, and counts the next turn afresh', () => {
    const { s, events, capped } = state();
    s.beginTurn();
    for (let i = 0; i < TURN_ENTRIES_MAX + 1000; i += 1) s.addEntry('assistant', 'main', `entry ${i}`);
    expect(s.snapshot().transcript).toHaveLength(TURN_ENTRIES_MAX);
    expect(capped).toEqual([
      `wrote more than ${TURN_ENTRIES_MAX} transcript entries in one turn, so Baton stopped the turn (what came after is not kept); send a message to go on`,
    ]);
    s.note('main', 'Stopped.');
    expect(s.snapshot().transcript.at(-1)?.text).toBe('Stopped.');
    s.endTurn(true);
    s.beginTurn();
    expect(s.addEntry('assistant', 'main', 'again')).not.toBeNull();
    expect(events.filter((e) => e.type === 'transcript')).toHaveLength(TURN_ENTRIES_MAX + 2);
  });

  it('holds a turn to its text, and cuts an entry longer than the most one keeps', () => {
    const { s, capped } = state();
    s.beginTurn();
    const long = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 100 && capped.length === 0; i += 1) s.addEntry('assistant', 'main', long);
    expect(capped).toHaveLength(1);
    const kept = s.snapshot().transcript.reduce((sum, e) => sum + e.text.length, 0);
    expect(kept).toBeLessThanOrEqual(TURN_TEXT_MAX);
    expect(s.snapshot().transcript[0]!.text.endsWith('(the rest is not shown)')).toBe(true);
  });

  it('reports no permission request past the request cap', () => {
    const { s, events, capped } = state();
    const asks = new PendingAsks<number>(s);
    s.beginTurn();
    for (let i = 0; i < TURN_ASKS_MAX + 50; i += 1) asks.add({ id: `r${i}`, agent: 'main', tool: 'Bash', command: `echo ${i}` }, i);
    expect(asks.size).toBe(TURN_ASKS_MAX);
    expect(events.filter((e) => e.type === 'permission-request')).toHaveLength(TURN_ASKS_MAX);
    expect(capped).toHaveLength(1);
  });
});
