import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref } from './use-route.ts';

describe('hash routes', () => {
  it('round-trips every route through its href', () => {
    for (const route of [{ screen: 'sessions' }, { screen: 'devices' }, { screen: 'session', sessionId: 'a b/c' }] as const) {
      expect(parseRoute(routeHref(route))).toEqual(route);
    }
  });

  it('treats anything unknown as the sessions screen', () => {
    expect(parseRoute('#/nowhere')).toEqual({ screen: 'sessions' });
    expect(parseRoute('')).toEqual({ screen: 'sessions' });
  });
});
