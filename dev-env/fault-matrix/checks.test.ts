/**
 * The fault matrix's checks on made-up evidence: a clean completed move passes, and each broken
 * invariant (two owners, a generation going back, a lost or reordered entry, a turn on a device that
 * did not own the session, a move that never ended) is named.
 */
import { describe, expect, it } from 'vitest';
import type { TurnRecord } from '../../electron/runtime/sessions/turn-observer.ts';
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { SessionDetail } from '../../shared/device-api.ts';
import { FORWARD_STATES, type HandoffState } from '../../shared/handoff-states.ts';
import { handoffRecord } from '../handoff-record.ts';
import { checkCase, type Evidence } from './checks.ts';

const ids = { laptop: 'laptop-id', desktop: 'desktop-id' };
const PATH: HandoffState[] = [...FORWARD_STATES];

function handoff(states: HandoffState[]): Handoff {
  return handoffRecord(
    { source: ids.laptop, target: ids.desktop },
    states.map((state, i) => ({ state, at: 1000 * (i + 1), deviceId: null })),
  );
}

const entries = (...names: string[]) => names.map((id) => ({ id, at: 0, role: 'assistant' as const, agentId: 'main', text: id }));

function view(owner: string, generation: number, isOwner: boolean, transcript: string[]): SessionDetail {
  return { ownerDeviceId: owner, generation, isOwner, transcript: entries(...transcript) } as unknown as SessionDetail;
}

const turn = (device: string, event: TurnRecord['event'], generation: number, at: number): TurnRecord => ({
  deviceId: device,
  sessionId: 's1',
  event,
  generation,
  ownerDeviceId: device,
  at,
});

/** A move that completed and left everything in place. */
function completedMove(): Evidence {
  return {
    ids,
    backend: {
      session: { id: 's1', accountId: 'a1', ownerDeviceId: ids.desktop, generation: 2, sealedMeta: 'x', createdAt: 0, updatedAt: 0 },
      handoff: handoff(PATH),
      entryIds: ['e1', 'e2', 'e3'],
    },
    final: { laptop: view(ids.desktop, 2, false, ['e1', 'e2']), desktop: view(ids.desktop, 2, true, ['e1', 'e2', 'e3']) },
    samples: [
      { device: 'laptop', at: 500, generation: 1, ownerDeviceId: ids.laptop, entryIds: ['e1', 'e2'] },
      { device: 'laptop', at: 6000, generation: 2, ownerDeviceId: ids.desktop, entryIds: ['e1', 'e2'] },
      { device: 'desktop', at: 6000, generation: 2, ownerDeviceId: ids.desktop, entryIds: ['e1', 'e2', 'e3'] },
    ],
    turns: [turn(ids.laptop, 'started', 1, 500), turn(ids.laptop, 'ended', 1, 3500), turn(ids.desktop, 'started', 2, 7500)],
  };
}

describe('the fault matrix checks', () => {
  it('find nothing wrong with a completed move that kept everything', () => {
    expect(checkCase(completedMove())).toEqual({ violations: [], kept: 3, of: 3 });
  });

  it('name a move that never ended and one that took a path the table forbids', () => {
    const stuck = completedMove();
    stuck.backend.handoff = handoff(PATH.slice(0, 6));
    stuck.backend.handoff.history.push({ state: 'requested', at: 9000, deviceId: null });
    expect(checkCase(stuck).violations).toEqual(
      expect.arrayContaining([
        'the handoff did not end: it is target-activating on the backend',
        'the history went target-activating → requested, which the table forbids',
      ]),
    );
  });

  it('name two devices that both say they own the session', () => {
    const both = completedMove();
    both.final.laptop = view(ids.laptop, 1, true, ['e1', 'e2']);
    expect(checkCase(both).violations).toEqual(
      expect.arrayContaining([
        '2 devices say they own the session (laptop, desktop)',
        'the laptop says laptop owns the session',
        'the laptop is at generation 1, the backend 2',
      ]),
    );
  });

  it('name a generation that went back on a device (a restart that forgot the move)', () => {
    const back = completedMove();
    back.samples.push({ device: 'laptop', at: 7000, generation: 1, ownerDeviceId: ids.laptop, entryIds: ['e1', 'e2'] });
    expect(checkCase(back).violations).toContain("the laptop's generation went back from 2 to 1");
  });

  it('name entries the owner lost or holds in another order, and count what it kept', () => {
    const lost = completedMove();
    lost.samples.push({ device: 'laptop', at: 2000, generation: 1, ownerDeviceId: ids.laptop, entryIds: ['e1', 'e2', 'note'] });
    expect(checkCase(lost)).toMatchObject({ violations: ['the desktop lacks 1 of 4 entries (note on the laptop)'], kept: 3, of: 4 });
    const reordered = completedMove();
    reordered.final.desktop = view(ids.desktop, 2, true, ['e2', 'e1', 'e3']);
    expect(checkCase(reordered).violations).toContain('the desktop holds entries the laptop had in another order');
  });

  it('name a turn on a device that did not own the session, by generation and by time', () => {
    const turns = completedMove();
    turns.turns.push(turn(ids.laptop, 'ended', 1, 4200), turn(ids.desktop, 'started', 1, 300), turn(ids.laptop, 'started', 2, 8000));
    expect(checkCase(turns).violations).toEqual([
      'a turn ended on the laptop at generation 1 ended 200 ms after it gave the session up',
      'a turn started on the desktop at generation 1, which the laptop owned',
      'a turn started on the desktop at generation 1 started outside its time as owner',
      'a turn started on the laptop at generation 2, which the desktop owned',
      'a turn started on the laptop at generation 2 started outside its time as owner',
    ]);
  });
});
