/** Where the account's backend runs, in the words Devices and the notices use. */
import { describe, expect, it } from 'vitest';
import type { HostedBackendView } from '../../shared/device-api.ts';
import { deviceStatus } from '../test-support/views.ts';
import { backendHomeLine, backendName, hostedStateText } from './backend-home.ts';

const HOSTED: HostedBackendView = { state: 'running', port: 8787, shared: false, addresses: [], error: null };

describe('where the sync backend runs', () => {
  it('names this device when it hosts the backend, and says the others need it on', () => {
    const status = deviceStatus({ deviceName: 'desk', backendHome: { where: 'this-device', hosted: HOSTED } });
    expect(backendHomeLine(status)).toBe(
      'Your sync backend runs on this device, desk. Other devices can move sessions only while desk is on.',
    );
    expect(backendName(status)).toBe('the sync backend on desk');
  });

  it('names the device that hosts it on the other devices', () => {
    const status = deviceStatus({ backendHome: { where: 'device', deviceId: 'd0', deviceName: 'desk' } });
    expect(backendHomeLine(status)).toBe('Your sync backend runs on desk. Moves, new sessions and invites need desk to be on.');
    expect(backendName(status)).toBe('the sync backend on desk');
  });

  it('gives the address of a backend no device hosts', () => {
    expect(backendHomeLine(deviceStatus({ backendUrls: ['https://sync.example:8787'] }))).toBe(
      'Your sync backend runs at https://sync.example:8787.',
    );
    expect(backendHomeLine(deviceStatus({ backendUrls: ['https://a:1', 'https://b:2', 'https://c:3'] }))).toBe(
      'Your sync backend runs at https://a:1 (and 2 more addresses).',
    );
    expect(backendName(deviceStatus())).toBe('the sync backend');
    expect(backendHomeLine(null)).toBeNull();
  });

  it('says the state of a backend this device hosts', () => {
    expect(hostedStateText(HOSTED)).toBe('Running · this machine only');
    expect(hostedStateText({ ...HOSTED, shared: true })).toBe('Running · other machines can reach it');
    expect(hostedStateText({ ...HOSTED, state: 'starting' })).toBe('Starting…');
    expect(hostedStateText({ ...HOSTED, state: 'failed', error: 'Port 8787 is in use.' })).toBe('Not running: Port 8787 is in use.');
  });
});
