/** The events the device runtime pushes to the renderer (and the one the Electron shell adds). */
import type { AgentView, TranscriptEntry } from '../agents.ts';
import type { HandoffProgressView, HandoffView, MoveNoticeView } from '../move-views.ts';
import type { DeviceStatusView, DeviceView } from './devices.ts';
import type { SessionDetail, SessionView } from './sessions.ts';

/**
 * What an agent just did in a session: the transcript from index `transcriptFrom` on (usually the
 * one new entry) and the whole agent map, so a long transcript is not resent on every event. A
 * renderer holding fewer than `transcriptFrom` entries has missed some and reloads the session.
 */
export interface SessionActivity {
  sessionId: string;
  transcriptFrom: number;
  transcript: TranscriptEntry[];
  agents: AgentView[];
}

export interface DeviceApiEvents {
  statusChanged: DeviceStatusView;
  sessionsChanged: SessionView[];
  sessionChanged: SessionDetail;
  sessionActivity: SessionActivity;
  handoffChanged: HandoffView;
  devicesChanged: DeviceView[];
  handoffProgress: HandoffProgressView;
  moveNotice: MoveNoticeView;
  /** A device joined the account with an invite this device made (it approved the join): the invite is used up. */
  inviteUsed: { inviteId: string; deviceName: string; at: number };
  /** Sent by the Electron shell (not the runtime) when its notification about a session was clicked. */
  noticeClicked: { sessionId: string };
}

export type DeviceApiEvent = keyof DeviceApiEvents;

/** Every event, once: the bridges subscribe and forward by these names. */
export const EVENT_NAMES: readonly DeviceApiEvent[] = [
  'statusChanged',
  'sessionsChanged',
  'sessionChanged',
  'sessionActivity',
  'handoffChanged',
  'devicesChanged',
  'handoffProgress',
  'moveNotice',
  'inviteUsed',
  'noticeClicked',
];
