/**
 * `baton invite`: prints a one-time invite (one line) for the account of an enrolled device profile.
 * An invite of the device hosting the account's backend carries the addresses other machines reach it
 * at once the device lets them (`--share-backend` asks the running device to); an invite whose
 * addresses are all loopback ones works only on this machine, which a warning line on stderr says.
 */
import { networkInterfaces } from 'node:os';
import { DEFAULT_INVITE_TTL_MS, MAX_INVITE_TTL_MS } from '../shared/api/devices.ts';
import { createInvite } from '../electron/enrollment/invites.ts';
import { loadProfile, type Profile } from '../electron/enrollment/profile.ts';
import { syncEnrollmentBackendFactory } from '../electron/enrollment/sync-backend.ts';
import { loadUiAddress, uiUrl } from '../electron/host/ui-address.ts';
import { hostedInviteUrls } from '../electron/hosting/network-addresses.ts';
import { parseFlags, required, UsageError, type Command } from './command.ts';
import { callDevice } from './device-call.ts';

export const command: Command = {
  summary: 'print a one-time invite for another device to join',
  usage: [
    'Usage: baton invite --profile DIR [--ttl MINUTES] [--share-backend]',
    '',
    'Registers a one-time invite for the account of the enrolled device in DIR and prints it on one',
    'line. Start the new device with `baton device ... --join INVITE`; the inviting device must be',
    'running to approve the join. The invite expires after --ttl minutes (default 15) and works once;',
    'the backend refuses a longer lifetime than an hour. One device at a time may wait to join with it.',
    "It carries the backend's addresses: those other machines use when the device in DIR hosts the",
    'backend and lets them reach it; an invite whose addresses are all on this machine (127.0.0.1) works',
    'only here, and a warning line on stderr says so.',
    '',
    'Options:',
    '  --profile DIR     the profile folder of an enrolled device',
    `  --ttl MINUTES     how long the invite stays valid (default ${DEFAULT_INVITE_TTL_MS / 60_000}, 1–${MAX_INVITE_TTL_MS / 60_000})`,
    '  --share-backend   first let other machines reach the backend the device in DIR hosts (it must be',
    '                    running): it then serves HTTPS on every address of this machine, kept across restarts',
  ].join('\n'),
  async run(argv) {
    const { values } = parseFlags(argv, { profile: { type: 'string' }, ttl: { type: 'string' }, 'share-backend': { type: 'boolean' } });
    const dir = required(values, 'profile');
    const maxMinutes = MAX_INVITE_TTL_MS / 60_000;
    const ttlMinutes = values.ttl === undefined ? DEFAULT_INVITE_TTL_MS / 60_000 : Number(values.ttl);
    if (!Number.isInteger(ttlMinutes) || ttlMinutes < 1 || ttlMinutes > maxMinutes)
      throw new UsageError(`--ttl must be a whole number of minutes from 1 to ${maxMinutes}, got ${String(values.ttl)}`);
    if (values['share-backend'] === true) {
      const shared = await shareBackend(dir);
      if (shared !== null) {
        console.error(`baton invite: ${shared}`);
        return 1;
      }
    }
    const loaded = loadProfile(dir);
    if (!loaded.ok) {
      console.error(`baton invite: ${loaded.message}`);
      return 1;
    }
    const profile = loaded.value;
    const hosting = profile.info.hosting;
    const invite = await createInvite(
      profile,
      syncEnrollmentBackendFactory(profile.info.backendUrls, profile.identity, profile.info.backendPins),
      {
        ttlMs: ttlMinutes * 60_000,
        ...(hosting
          ? {
              addresses: hostedInviteUrls(hosting.port, hosting.shared, networkInterfaces()),
              backendHost: { deviceId: profile.identity.deviceId, name: profile.info.name },
            }
          : {}),
      },
    );
    if (!invite.ok) {
      console.error(`baton invite: ${invite.message}`);
      return 1;
    }
    if (invite.value.thisMachineOnly) console.error(`baton invite: warning: ${thisMachineOnly(profile)}`);
    console.log(invite.value.line);
    return 0;
  },
};

/** Why an invite of `profile` works only on this machine, and what would make one that works elsewhere. */
function thisMachineOnly(profile: Profile): string {
  const urls = profile.info.backendUrls;
  if (profile.info.hosting)
    return (
      'this invite works only for a device on this machine: the sync backend this device hosts listens on this machine only. ' +
      `To let other machines reach it: baton invite --profile ${profile.dir} --share-backend (or Devices → Let other machines reach this backend)`
    );
  return (
    `this invite works only for a device on this machine: its backend addresses (${urls.join(', ')}) are all on this machine. ` +
    "Give the device the backend's network address (baton device --backend URL) for an invite that works elsewhere"
  );
}

/** Asks the running device of the profile in `dir` to let other machines reach the backend it hosts; null once it does, else why not. */
async function shareBackend(dir: string): Promise<string | null> {
  const loaded = loadProfile(dir);
  if (!loaded.ok) return loaded.message;
  if (!loaded.value.info.hosting)
    return 'the device in this profile does not host the sync backend, so there is nothing to share from here';
  const kept = loadUiAddress(dir);
  if (kept === null) return `the device in ${dir} has not run headless yet: start it (baton device --profile ${dir}), then try again`;
  try {
    const shared = await callDevice(uiUrl(kept.port, kept.token), 'shareBackend', { shared: true });
    return shared.ok ? null : shared.message;
  } catch (error) {
    return `the device in ${dir} does not answer (${(error as Error).message}): start it (baton device --profile ${dir}), then try again`;
  }
}
