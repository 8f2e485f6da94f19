/**
 * Composes a DeviceRuntime for an enrolled profile from the real parts: the signed sync client and
 * push stream, the profile's key ring and enrollment, git, packets and providers, each behind the
 * port it implements (adapters/). The headless device command, the demo and the Electron shell all
 * build their runtime here.
 */
import type { ProviderId, SessionSettings } from '../../shared/provider.ts';
import { redactCredentials } from '../../shared/url-credentials.ts';
import { setBackendUrls, type Profile } from '../enrollment/profile.ts';
import { createGitRunner } from '../git/git-runner.ts';
import { detectProviders } from '../providers/detect.ts';
import { listExistingSessions } from '../providers/existing-sessions.ts';
import { createProvider, type ProviderOptions } from '../providers/registry.ts';
import { createBackendClient } from '../sync/backend-client.ts';
import { openPushStream } from '../sync/push-stream.ts';
import type { HandoffConfig } from '../handoff/handoff-config.ts';
import type { StepGate, TurnObserver } from '../handoff/test-seam.ts';
import { LocalState } from '../local-state/local-state.ts';
import { createCheckpointPacketPort } from '../packet/checkpoint-packet.ts';
import { accountPort } from './adapters/account-port.ts';
import { backendPort } from './adapters/backend-port.ts';
import { gitPort } from './adapters/git-port.ts';
import { providerPort } from './adapters/provider-port.ts';
import { remediationPort } from './adapters/remediation-port.ts';
import { profileSeal } from './adapters/seal-port.ts';
import { targetCheck } from './adapters/target-check.ts';
import { DeviceRuntime } from './device-runtime.ts';

export interface ComposeOptions {
  profile: Profile;
  workspaceRoot: string;
  heartbeatMs: number;
  config: Omit<HandoffConfig, 'workspaceRoot'>;
  providers?: ProviderOptions;
  log(message: string): void;
  /** Told when the device's backend addresses are changed from the UI (after the profile kept them). */
  onBackendUrlsChanged?(urls: readonly string[]): void;
  /** Asked before each handoff step and commit (handoff/test-seam.ts); none on a shipped device. */
  gate?: StepGate;
  /** Told of each provider turn that starts or ends; none on a shipped device. */
  observeTurn?: TurnObserver;
}

/** Builds the runtime of an enrolled device (not started). */
export function composeDeviceRuntime(options: ComposeOptions): DeviceRuntime {
  const { profile } = options;
  // Every line the runtime logs can quote a remote URL or a git error: none carries credentials.
  const log = (message: string) => options.log(redactCredentials(message));
  const client = createBackendClient({ baseUrl: profile.info.backendUrls, signer: profile.identity });
  const run = createGitRunner();
  const providerOptions = options.providers ?? {};
  const status = {
    enrolled: true,
    deviceId: profile.identity.deviceId,
    deviceName: profile.info.name,
    accountId: profile.info.accountId ?? '',
    backendUrls: [...profile.info.backendUrls],
    reachability: null,
    joining: false,
  };
  return new DeviceRuntime({
    status,
    state: new LocalState(profile.dir),
    backend: backendPort(client),
    seal: profileSeal(profile),
    git: gitPort(run),
    remediation: remediationPort(run),
    packets: createCheckpointPacketPort(),
    providers: providerPort({
      detect: () => detectProviders({ env: providerOptions.env ?? process.env, commandArgv: providerOptions.command?.argv ?? null }),
      existing: (id, workspace) => listExistingSessions(id, workspace, providerOptions.env ?? process.env),
      create: (id: ProviderId, settings: SessionSettings) => {
        const made = createProvider(id, providerOptions, settings);
        if (!made.ok) throw new Error(made.message);
        return made.value;
      },
    }),
    targetCheck,
    account: accountPort(profile, client, log),
    link: {
      addresses: () => [...client.addresses.urls],
      setAddresses(urls) {
        setBackendUrls(profile, urls);
        client.addresses.replace(urls);
        options.onBackendUrlsChanged?.(urls);
      },
      reachability: () => client.reachability.view(),
      longestWait: () => client.reachability.longestWait(),
      subscribe: (listener) => client.reachability.subscribe(listener),
    },
    openStream: (onMessage, onOpen) => {
      const close = openPushStream(
        client,
        onMessage,
        { onOpen, onError: (e) => log(`push stream: ${e.code} ${e.message}`) },
        { maxBackoffMs: 2000 },
      );
      return { close };
    },
    clock: Date.now,
    heartbeatMs: options.heartbeatMs,
    config: { ...options.config, workspaceRoot: options.workspaceRoot },
    log,
    gate: options.gate,
    observeTurn: options.observeTurn,
  });
}
