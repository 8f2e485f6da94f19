/**
 * The run view's panels as derived from a session's state now: the blocked alert of the session as
 * it is (never one left from before a move), where each fix is made, the note under Move here until
 * a block or a move answers it, how the last move ended while that still holds, and the refusal of
 * an offline owner until it is back.
 */
import { describe, expect, it } from 'vitest';
import type { MoveBlockView } from '../../shared/device-api.ts';
import { checkoutBlocker, DIRTY_TREE, handoffIn, readinessReport, sessionView } from '../test-support/views.ts';
import { movedOnSince, runPanels, stampOf, type Known, type PageMemory } from './run-panels.ts';

const DIRTY = DIRTY_TREE;
const CHECKOUT = checkoutBlocker('laptop', 'd1');

/** The laptop (d1) looking at a session the desktop (d2) owns at generation 2. */
const offLaptop = sessionView({ ownerDeviceId: 'd2', ownerName: 'desktop', isOwner: false, condition: 'remote', generation: 2 });
const onLaptop: Known = { selfId: 'd1', offline: () => false, askAnsweredWithinMs: 120_000 };

/** A block the desktop kept at generation 2 of moving the session to the laptop. */
const kept = (over: Partial<MoveBlockView> = {}): MoveBlockView => ({
  sourceDeviceId: 'd2',
  sourceName: 'desktop',
  generation: 2,
  targetDeviceId: 'd1',
  targetName: 'laptop',
  askedBy: 'd1',
  blockers: [DIRTY],
  foundBy: 'readiness',
  handoffId: null,
  at: 5_000,
  ...over,
});

const panels = (session = offLaptop, memory: PageMemory = {}, known = onLaptop, now = 10_000) => runPanels(session, memory, known, now);

describe('the blocked alert', () => {
  it('is the kept block of the session as it is: from its owner now, to another device, at its generation now', () => {
    const blocked = panels({ ...offLaptop, blocked: kept() }).blocked;
    expect(blocked).toMatchObject({ sourceName: 'desktop', targetName: 'laptop', toHere: true, ownedHere: false, movesOnItsOwn: true });
    // A block left from generation 1 (before the session moved) is no one's.
    expect(panels({ ...offLaptop, blocked: kept({ generation: 1, sourceDeviceId: 'd1' }) }).blocked).toBeNull();
  });

  it("drops this page's own Ready to move once the session has moved: its Move now would move it back the other way", () => {
    const ready = {
      stamp: { ownerDeviceId: 'd1', generation: 1, handoffId: null },
      targetDeviceId: 'd2',
      targetName: 'desktop',
      report: readinessReport([]),
      actionError: null,
      askedBy: 'd2',
      handoffId: null,
    };
    const owned = sessionView();
    expect(panels(owned, { blocked: ready }).blocked).toMatchObject({ ready: true, targetName: 'desktop' });
    const moved = sessionView({ ownerDeviceId: 'd2', ownerName: 'desktop', isOwner: false, condition: 'moved', generation: 2 });
    expect(panels(moved, { blocked: ready }).blocked).toBeNull();
    expect(movedOnSince(ready.stamp, moved, 'd1')).toBe(
      'The session moved meanwhile and now runs on desktop (generation 2), so nothing was done.',
    );
  });

  it("says each fix is made where its files are: the owner's tree on the owner, the target's checkout on the target", () => {
    const both = panels({ ...offLaptop, blocked: kept({ blockers: [DIRTY, CHECKOUT] }) }).blocked!;
    expect(both.fixOn).toEqual(['desktop', null]);
    const onDesktop = panels(sessionView({ ownerDeviceId: 'd2', ownerName: 'desktop', generation: 2 }), {}, { ...onLaptop, selfId: 'd2' });
    expect(onDesktop.blocked).toBeNull();
    const owner = sessionView({ ownerDeviceId: 'd2', ownerName: 'desktop', generation: 2, blocked: kept({ blockers: [CHECKOUT] }) });
    expect(panels(owner, {}, { ...onLaptop, selfId: 'd2' }).blocked!.fixOn).toEqual(['laptop']);
  });

  it('hides the cancelled move the alert already tells, and the arrival note beside a block', () => {
    const cancelled = handoffIn('cancelled', {
      id: 'h9',
      sourceDeviceId: 'd2',
      sourceName: 'desktop',
      targetDeviceId: 'd1',
      targetName: 'laptop',
      generation: 2,
      blockers: [CHECKOUT],
    });
    const session = { ...offLaptop, lastHandoff: cancelled, blocked: kept({ blockers: [CHECKOUT], handoffId: 'h9', foundBy: 'target' }) };
    expect(panels(session)).toMatchObject({ lastMove: null, blocked: { handoffId: 'h9' } });

    const arrived = handoffIn('completed', { generation: 1 });
    const here = sessionView({ ownerDeviceId: 'd2', ownerName: 'desktop', generation: 2, lastHandoff: arrived });
    const onDesktop = { ...onLaptop, selfId: 'd2' };
    expect(panels(here, {}, onDesktop).lastMove).toMatchObject({ kind: 'completed', arrivedHere: true, drift: 'matched' });
    const blockedNow = { ...here, blocked: kept({ targetDeviceId: 'd1', targetName: 'laptop', askedBy: null }) };
    expect(panels(blockedNow, {}, onDesktop).lastMove).toMatchObject({ kind: 'completed', drift: null });
  });
});

describe('the note under Move here', () => {
  const asked: PageMemory = { asked: { stamp: stampOf(offLaptop), at: 9_000 } };

  it('says the owner was asked until a block answers it, and goes once the session moves', () => {
    expect(panels(offLaptop, asked).asked).toEqual({ ownerName: 'desktop', at: 9_000, late: false });
    expect(panels({ ...offLaptop, blocked: kept() }, asked).asked).toBeNull();
    const moved = sessionView({ ownerDeviceId: 'd1', ownerName: 'laptop', generation: 3 });
    expect(panels(moved, asked).asked).toBeNull();
    const elsewhere = { ...offLaptop, ownerDeviceId: 'd3', ownerName: 'studio', generation: 3 };
    expect(panels(elsewhere, asked).asked).toBeNull();
  });

  it('says so once the owner no longer acts on it', () => {
    expect(panels(offLaptop, asked, onLaptop, 9_000 + 120_001).asked?.late).toBe(true);
  });

  it("drops an offline owner's refusal once the owner is back", () => {
    const said: PageMemory = { said: { stamp: stampOf(offLaptop), text: 'desktop is offline.', ownerOffline: true } };
    expect(panels(offLaptop, said, { ...onLaptop, offline: () => true }).said).toBe('desktop is offline.');
    expect(panels(offLaptop, said).said).toBeNull();
  });
});
