/** `baton invite`: prints a one-time invite (one line) for the account of an enrolled device profile. */
import { DEFAULT_INVITE_TTL_MS, MAX_INVITE_TTL_MS } from '../shared/api/devices.ts';
import { createInvite } from '../electron/enrollment/invites.ts';
import { loadProfile } from '../electron/enrollment/profile.ts';
import { syncEnrollmentBackendFactory } from '../electron/enrollment/sync-backend.ts';
import { parseFlags, required, UsageError, type Command } from './command.ts';

export const command: Command = {
  summary: 'print a one-time invite for another device to join',
  usage: [
    'Usage: baton invite --profile DIR [--ttl MINUTES]',
    '',
    'Registers a one-time invite for the account of the enrolled device in DIR and prints it on one',
    'line. Start the new device with `baton device ... --join INVITE`; the inviting device must be',
    'running to approve the join. The invite expires after --ttl minutes (default 15) and works once;',
    'the backend refuses a longer lifetime than an hour. One device at a time may wait to join with it.',
    '',
    'Options:',
    '  --profile DIR   the profile folder of an enrolled device',
    `  --ttl MINUTES   how long the invite stays valid (default ${DEFAULT_INVITE_TTL_MS / 60_000}, 1–${MAX_INVITE_TTL_MS / 60_000})`,
  ].join('\n'),
  async run(argv) {
    const { values } = parseFlags(argv, { profile: { type: 'string' }, ttl: { type: 'string' } });
    const dir = required(values, 'profile');
    const maxMinutes = MAX_INVITE_TTL_MS / 60_000;
    const ttlMinutes = values.ttl === undefined ? DEFAULT_INVITE_TTL_MS / 60_000 : Number(values.ttl);
    if (!Number.isInteger(ttlMinutes) || ttlMinutes < 1 || ttlMinutes > maxMinutes)
      throw new UsageError(`--ttl must be a whole number of minutes from 1 to ${maxMinutes}, got ${String(values.ttl)}`);
    const loaded = loadProfile(dir);
    if (!loaded.ok) {
      console.error(`baton invite: ${loaded.message}`);
      return 1;
    }
    const profile = loaded.value;
    const invite = await createInvite(
      profile,
      syncEnrollmentBackendFactory(profile.info.backendUrls, profile.identity, profile.info.backendPins),
      {
        ttlMs: ttlMinutes * 60_000,
      },
    );
    if (!invite.ok) {
      console.error(`baton invite: ${invite.message}`);
      return 1;
    }
    console.log(invite.value.line);
    return 0;
  },
};
