/** The handoff record's schema: what a device reads from a backend, this one or an older one. */
import { expect, it } from 'vitest';
import { handoffRecord } from '../../dev-env/handoff-record.ts';
import { Handoff } from './handoffs.ts';

const id = (name: string) => name.padEnd(16, '_');

const completed = () => ({
  ...handoffRecord({ source: id('laptop'), target: id('desktop') }, [{ state: 'completed' as const, at: 1, deviceId: id('desktop') }]),
  id: id('handoff'),
  accountId: id('account'),
  sessionId: id('session'),
  checkpoint: { digest: 'a'.repeat(64), size: 10 },
});

it('reads whether the checkpoint is still kept, and a record without the field (an older backend keeps every body) as kept', () => {
  expect(Handoff.parse({ ...completed(), checkpointKept: false }).checkpointKept).toBe(false);
  const { checkpointKept: _dropped, ...older } = completed();
  expect(Handoff.parse(older).checkpointKept).toBe(true);
});
