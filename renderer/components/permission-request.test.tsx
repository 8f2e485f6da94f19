/** The "Permission request" region: the request in full, its three answers, and what became of an answer. */
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { SessionDetail } from '../../shared/device-api.ts';
import type { PermissionOutcomeView, PermissionRequestView } from '../../shared/permission-views.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { fakeDevice } from '../test-support/fake-device-api.ts';
import { deviceStatus, sessionView } from '../test-support/views.ts';
import { PermissionRequest } from './permission-request.tsx';

const NPM_TEST: PermissionRequestView = {
  id: 'perm-1',
  sessionId: 's1',
  generation: 3,
  deviceId: 'd1',
  agent: 'main',
  agentName: 'Claude Code',
  providerLabel: 'Claude Code',
  tool: 'Bash',
  command: 'npm test -- --run',
  reason: 'This command requires approval',
  sessionRule: { tool: 'Bash', commandPrefix: 'npm test -- --run' },
  askedAt: 1,
};
const EDIT: PermissionRequestView = {
  ...NPM_TEST,
  id: 'perm-2',
  tool: 'Edit',
  command: undefined,
  path: '/w/src/app.ts',
  diff: '--- /w/src/app.ts\n+++ /w/src/app.ts\n@@ -1 +1 @@\n-old\n+new\n',
  sessionRule: { tool: 'Edit' },
};

/** The run view's detail of s1 with `requests` pending and `outcomes` ended. */
function detail(
  requests: PermissionRequestView[],
  outcomes: PermissionOutcomeView[] = [],
  over: Partial<SessionDetail> = {},
): SessionDetail {
  const base = {
    ...sessionView({ generation: 3 }),
    agents: [],
    transcript: [],
    transcriptFrom: 0,
    transcriptTotal: 0,
    providerChanges: [],
  };
  return { ...base, permissionRequests: requests, permissionOutcomes: outcomes, ...over };
}

function outcome(over: Partial<PermissionOutcomeView>): PermissionOutcomeView {
  return {
    requestId: 'perm-1',
    asked: 'run `npm test -- --run`',
    decision: 'allow',
    via: 'user',
    byDeviceId: 'd2',
    byName: 'desktop',
    at: 2,
    ...over,
  };
}

const region = () => screen.getByRole('region', { name: 'Permission request' });

describe('the permission request region', () => {
  it('shows which agent asks, the exact command, why, and answers Allow bound to the request and its generation', async () => {
    fakeDevice.answer('answerPermission', { ok: true, value: undefined });
    render(<PermissionRequest session={detail([NPM_TEST, EDIT])} />);
    // The command as code, not between backticks as it was written.
    expect(region()).toHaveTextContent('Claude Code wants to run npm test -- --run.');
    expect(within(region()).getByText('npm test -- --run', { selector: '.permission-ask code' })).toBeInTheDocument();
    expect(region().textContent).not.toContain('`');
    expect(within(region()).getByLabelText('Command')).toHaveTextContent('npm test -- --run');
    expect(region()).toHaveTextContent('This command requires approval');
    expect(region()).toHaveTextContent('One more request waits after this one.');
    await userEvent.click(within(region()).getByRole('button', { name: 'Allow' }));
    expect(fakeDevice.callsOf('answerPermission')).toEqual([{ sessionId: 's1', requestId: 'perm-1', generation: 3, decision: 'allow' }]);
  });

  it('shows the file and the diff of a change; Deny carries the message, "Allow for this session" says what it keeps', async () => {
    fakeDevice.answer('answerPermission', { ok: true, value: undefined });
    const { rerender } = render(<PermissionRequest session={detail([EDIT])} />);
    expect(region()).toHaveTextContent('File: /w/src/app.ts');
    expect(within(region()).getByLabelText('Diff of the change')).toHaveTextContent('-old +new');
    expect(region()).toHaveTextContent('“Allow for this session” also allows every Edit from now on, on any device.');
    await userEvent.type(within(region()).getByLabelText('Message to the agent with a deny (optional)'), 'use the helper');
    await userEvent.click(within(region()).getByRole('button', { name: 'Deny' }));
    rerender(<PermissionRequest session={detail([NPM_TEST])} />);
    await userEvent.click(within(region()).getByRole('button', { name: 'Allow for this session' }));
    expect(fakeDevice.callsOf('answerPermission')).toEqual([
      { sessionId: 's1', requestId: 'perm-2', generation: 3, decision: 'deny', message: 'use the helper' },
      { sessionId: 's1', requestId: 'perm-1', generation: 3, decision: 'allow-session' },
    ]);
  });

  it('on a device that does not own the session, says the answer went to the owner, then that another device answered first', async () => {
    act(() => useStatusStore.getState().setStatus(deviceStatus({ deviceId: 'd3' })));
    fakeDevice.answer('answerPermission', { ok: true, value: undefined });
    const remote = { isOwner: false, ownerName: 'laptop' };
    const { rerender } = render(<PermissionRequest session={detail([NPM_TEST], [], remote)} />);
    expect(region()).toHaveTextContent('Claude Code wants to run npm test -- --run on laptop.');
    expect(within(region()).queryByRole('button', { name: 'Stop the turn' })).toBeNull();
    await userEvent.click(within(region()).getByRole('button', { name: 'Deny' }));
    expect(region()).toHaveTextContent('Answer sent to laptop…');
    rerender(<PermissionRequest session={detail([], [outcome({})], remote)} />);
    expect(screen.queryByRole('region', { name: 'Permission request' })).toBeNull();
    expect(screen.getByRole('status')).toHaveTextContent(
      'Already answered on desktop: run npm test -- --run was allowed; your answer was not used.',
    );
  });

  it('says the refusal of an answer that came too late (the session moved), and Stop the turn stops it on the owner', async () => {
    fakeDevice.answer('answerPermission', { ok: false, code: 'stale_generation', message: 'The session moved since this was asked.' });
    fakeDevice.answer('interruptTurn', { ok: true, value: undefined });
    render(<PermissionRequest session={detail([NPM_TEST])} />);
    await userEvent.click(within(region()).getByRole('button', { name: 'Allow' }));
    expect(within(region()).getByRole('status')).toHaveTextContent('The session moved since this was asked.');
    await userEvent.click(within(region()).getByRole('button', { name: 'Stop the turn' }));
    expect(fakeDevice.callsOf('interruptTurn')).toEqual([{ sessionId: 's1' }]);
  });

  it('shows nothing when nothing is asked', () => {
    const { container } = render(<PermissionRequest session={detail([], [outcome({})])} />);
    expect(container).toBeEmptyDOMElement();
  });
});
