import { describe, expect, it } from 'vitest';
import type { LocalSession } from '../local-state/local-state.ts';
import { checkoutPlaces } from './checkout-places.ts';

const SELF = 'laptop-aaaaaaaaaaaa';

function placesFor(sessions: LocalSession[], sessionId: string) {
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const state = { readSession: (id: string) => byId.get(id), readSessions: () => sessions };
  return checkoutPlaces({ selfId: SELF, state, config: { workspaceRoot: '/ws' } }, sessionId);
}

/** A session record as far as the places read it: known on another device unless `over` says otherwise. */
const at = (id: string, over: Partial<LocalSession>) =>
  ({ id, workspace: '', repoPaths: [], ownerDeviceId: 'desktop-aaaaaaaaaaa', freshCloneOn: null, ...over }) as LocalSession;

describe('where a session moving here is looked for', () => {
  it('looks first where this device ran it, then where other sessions were started here, never where another of its own runs', () => {
    const places = placesFor(
      [
        at('moving', { workspace: '/home/u/src/app', repoPaths: ['/home/u/src/app'] }),
        at('elsewhere', { workspace: '/home/u/code', repoPaths: ['/home/u/code/app', '/home/u/code/lib'] }),
        at('running-here', { workspace: '/home/u/busy', ownerDeviceId: SELF }),
        at('never-here', { workspace: '' }),
      ],
      'moving',
    );
    expect(places).toEqual({
      workspaceRoot: '/ws',
      homes: ['/home/u/src/app', '/home/u/code/app', '/home/u/code/lib'],
      inUse: ['/home/u/busy'],
      fresh: false,
    });
  });

  it('clones afresh when the owner asked it for this device, and knows no home for a session it never ran', () => {
    expect(placesFor([at('moving', { freshCloneOn: SELF })], 'moving')).toMatchObject({ homes: [], fresh: true });
    expect(placesFor([at('moving', { freshCloneOn: 'desktop-aaaaaaaaaaa' })], 'moving').fresh).toBe(false);
    expect(placesFor([], 'unknown')).toEqual({ workspaceRoot: '/ws', homes: [], inUse: [], fresh: false });
  });
});
