/** Route matching derived from the route table. */
import { expect, it } from 'vitest';
import { matchRoute } from './router.ts';

it('matches a path to its route and parameters, and tells an unknown path from a wrong method', () => {
  expect(matchRoute('POST', '/v1/handoffs/abc_def/transitions')).toMatchObject({
    ok: true,
    name: 'transitionHandoff',
    params: { handoffId: 'abc_def' },
  });
  expect(matchRoute('GET', '/v1/sessions/s%2Fx/events')).toMatchObject({ ok: true, name: 'listEvents', params: { sessionId: 's/x' } });
  expect(matchRoute('GET', '/healthz')).toMatchObject({ ok: true, name: 'health' });
  expect(matchRoute('DELETE', '/v1/sessions')).toEqual({ ok: false, code: 'method_not_allowed' });
  expect(matchRoute('GET', '/v1/nothing')).toEqual({ ok: false, code: 'not_found' });
  expect(matchRoute('GET', '/v1/sessions/a/b/c')).toEqual({ ok: false, code: 'not_found' });
  expect(matchRoute('GET', '/v1/sessions/%E0%A4%A')).toEqual({ ok: false, code: 'not_found' });
});
