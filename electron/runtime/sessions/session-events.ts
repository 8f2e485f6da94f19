/**
 * What a session's event stream on the backend carries, sealed to the session: one transcript
 * entry, the history an adopted session brought, the agent map, its blocked move, or a permission
 * request asked or ended (runtime/permissions/). The owner sends them (event-sender.ts); every
 * other device pulls them in (event-puller.ts).
 */
import { z } from 'zod';
import type { AgentView, TranscriptEntry } from '../../../shared/agents.ts';
import { PermissionOutcomeViewSchema, PermissionRequestViewSchema } from '../../../shared/permission-views.ts';
import { MoveBlockSchema } from '../../local-state/record-parts.ts';

export const EventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('transcript'), entry: z.custom<TranscriptEntry>() }),
  /** Many entries at once: the history an adopted session brought with it. */
  z.object({ type: z.literal('history'), entries: z.array(z.custom<TranscriptEntry>()) }),
  z.object({ type: z.literal('agents'), agents: z.array(z.custom<AgentView>()) }),
  /** The session's blocked move as the owner found it, or null once nothing blocks it (runtime/move-blocks.ts). */
  z.object({ type: z.literal('move-block'), block: MoveBlockSchema.nullable() }),
  z.object({ type: z.literal('permission-request'), request: PermissionRequestViewSchema }),
  z.object({ type: z.literal('permission-settled'), outcome: PermissionOutcomeViewSchema }),
]);

/** One event of a session's stream, opened. */
export type SessionEventBody = z.infer<typeof EventSchema>;

/** The transcript entries an event carries (none for the agent map). */
export function entriesOf(event: SessionEventBody): TranscriptEntry[] {
  return event.type === 'history' ? event.entries : event.type === 'transcript' ? [event.entry] : [];
}
