import { describe, expect, it } from 'vitest';
import type { DeviceApiHandlers } from '../../../shared/device-api.ts';
import { dispatchDeviceCall } from './dispatch.ts';

/** Handlers that answer only createAccount, with what they were given. */
const handlers = { createAccount: async (input: unknown) => ({ ok: true, value: input }) } as unknown as DeviceApiHandlers;

describe('the device API dispatch', () => {
  it('refuses a device name of only spaces as an error of that field, in words', async () => {
    const outcome = await dispatchDeviceCall(handlers, 'createAccount', { backendUrls: ['http://127.0.0.1:1'], deviceName: '   ' });
    expect(outcome).toEqual({
      ok: false,
      error: {
        code: 'validation_failed',
        message: 'Give this device a name, e.g. "laptop": the other devices show it by that name.',
        details: {
          issues: [{ path: 'deviceName', message: 'Give this device a name, e.g. "laptop": the other devices show it by that name.' }],
        },
      },
    });
  });

  it('hands the handler the name trimmed', async () => {
    const outcome = await dispatchDeviceCall(handlers, 'createAccount', { backendUrls: ['http://127.0.0.1:1'], deviceName: '  laptop \n' });
    expect(outcome).toMatchObject({ ok: true, result: { value: { deviceName: 'laptop' } } });
  });

  it('names the field of a schema message that is not a sentence', async () => {
    const outcome = await dispatchDeviceCall(handlers, 'createAccount', { backendUrls: ['ftp://x'], deviceName: 'laptop' });
    expect(outcome).toMatchObject({
      ok: false,
      error: { message: 'backendUrls: "ftp://x" is not an http:// or https:// address.', details: { issues: [{ path: 'backendUrls' }] } },
    });
  });
});
