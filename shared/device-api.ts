/**
 * The device API: what the renderer may ask of its device runtime, declared once, one file per area
 * in `device-api/` (sessions, permissions, moves, devices and account, backend, events). This index
 * assembles the method table: Electron carries it over IPC (electron/preload.ts), the headless host
 * over its WebSocket bridge; both validate every input against these schemas before the runtime sees it.
 */
import type { z } from 'zod';
import { backendInputs, type BackendOutputs } from './device-api/backend.ts';
import { deviceInputs, type DeviceOutputs } from './device-api/devices.ts';
import { moveInputs, type MoveOutputs } from './device-api/moves.ts';
import { permissionInputs, type PermissionOutputs } from './device-api/permissions.ts';
import { sessionInputs, type SessionOutputs } from './device-api/sessions.ts';

export type { BackendReachabilityView, DeviceStatusView, DeviceView } from './device-api/devices.ts';
export type { BackendHomeView, HostedBackendView } from './device-api/backend-home.ts';
export type { DeviceApiEvent, DeviceApiEvents, SessionActivity } from './device-api/events.ts';
export { EVENT_NAMES } from './device-api/events.ts';
export type { BlockedMove, MoveResult } from './device-api/moves.ts';
export { HISTORY_PAGE, HISTORY_PAGE_MAX, MOVE_HERE_MAX_AGE_MS } from './device-api/moves.ts';
export type {
  AttentionView,
  ExistingSessionView,
  InputBlock,
  ProviderView,
  SessionDetail,
  SessionView,
  TranscriptPage,
} from './device-api/sessions.ts';
export { TRANSCRIPT_PAGE_MAX, TRANSCRIPT_WINDOW } from './device-api/sessions.ts';
export type { ActionResult } from './errors.ts';
export type {
  EligibilityView,
  HandoffProgressView,
  HandoffView,
  MoveBlockView,
  MoveNoticeView,
  ProgressStep,
  TargetFolderView,
} from './move-views.ts';

/** Every method's input schema, validated at the bridge: each area's, and no method in two areas (device-api.test.ts). */
export const inputs = {
  ...deviceInputs,
  ...backendInputs,
  ...sessionInputs,
  ...permissionInputs,
  ...moveInputs,
} as const;

export type DeviceApiMethod = keyof typeof inputs;
export type DeviceApiInput<M extends DeviceApiMethod> = z.infer<(typeof inputs)[M]>;

/** What each method resolves to. */
export interface DeviceApiOutputs extends DeviceOutputs, BackendOutputs, SessionOutputs, PermissionOutputs, MoveOutputs {}

/** The device runtime side of the API: one async function per method. */
export type DeviceApiHandlers = { [M in DeviceApiMethod]: (input: DeviceApiInput<M>) => Promise<DeviceApiOutputs[M]> };
