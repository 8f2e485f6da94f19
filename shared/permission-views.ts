/**
 * Permission requests as the devices and the UI see them: a pending request of a session (what the
 * owner's agent asks, with Baton's own id for it and the generation it was asked at), how each one
 * ended, and the words the run view, the transcript and the desktop notification use for them. The
 * owner publishes both, sealed, in the session's event stream, so every enrolled device shows them.
 */
import { z } from 'zod';
import {
  PERMISSION_DIFF_MAX,
  PERMISSION_TEXT_MAX,
  PermissionDecision,
  PermissionRuleSchema,
  type PermissionRequest,
  type PermissionRule,
} from './permission-request.ts';

const Text = z.string().max(PERMISSION_TEXT_MAX);
const Id = z.string().min(1).max(200);

/** A pending request as every device keeps and shows it. */
export const PermissionRequestViewSchema = z.strictObject({
  /** Baton's id for the request (never the CLI's own): what an answer names. */
  id: Id,
  sessionId: Id,
  /** The session's generation when it was asked: an answer is bound to it. */
  generation: z.number().int().positive(),
  /** The device whose agent asks (the owner then). */
  deviceId: Id,
  /** The agent that asks (an agent map id) and its name then. */
  agent: Id,
  agentName: Text,
  /** The provider's label ("Claude Code", "Demo agent"). */
  providerLabel: Text,
  tool: Text,
  command: Text.optional(),
  path: Text.optional(),
  diff: z.string().max(PERMISSION_DIFF_MAX).optional(),
  detail: Text.optional(),
  reason: Text.optional(),
  /** What "Allow for this session" remembers for it. */
  sessionRule: PermissionRuleSchema,
  askedAt: z.number(),
});
export type PermissionRequestView = z.infer<typeof PermissionRequestViewSchema>;

/**
 * How a request ended: `user` — a person answered it on `byName`'s device; `rule` — an "Allow for this
 * session" rule covered it; `move`, `stop`, `interrupt`, `restart` — Baton denied it (the session moved,
 * the device stopped, the turn was stopped, the device restarted while it waited); `withdrawn` — the
 * agent stopped asking (its turn ended).
 */
export const PermissionVia = z.enum(['user', 'rule', 'move', 'stop', 'interrupt', 'restart', 'withdrawn']);
export type PermissionVia = z.infer<typeof PermissionVia>;

export const PermissionOutcomeViewSchema = z.strictObject({
  requestId: Id,
  /** What was asked, in words ("run `npm test`"). */
  asked: Text,
  decision: z.union([PermissionDecision, z.literal('cancelled')]),
  via: PermissionVia,
  /** The deny's message to the agent, or why Baton answered. */
  message: Text.optional(),
  /** The device that answered (a person's answer) and its name; null when Baton answered. */
  byDeviceId: Id.nullable(),
  byName: Text.nullable(),
  at: z.number(),
});
export type PermissionOutcomeView = z.infer<typeof PermissionOutcomeViewSchema>;

/** What a session's detail carries of its permission requests: the pending ones, oldest first, and how the latest ended. */
export interface SessionPermissionsView {
  permissionRequests: PermissionRequestView[];
  permissionOutcomes: PermissionOutcomeView[];
}

/** Tools whose name is not a verb, in words (Codex's file change). */
const TOOL_VERBS: ReadonlyMap<string, string> = new Map([['fileChange', 'change']]);

/** What a request asks, in words: "run `npm test`", "Edit /ws/notes.md", Codex's "change /ws/notes.md", "WebFetch". */
export function describeAsk(request: Pick<PermissionRequest, 'tool' | 'command' | 'path'>): string {
  const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 199)}…` : text);
  if (request.command !== undefined) return `run \`${clip(request.command.replace(/\s+/g, ' '))}\``;
  if (request.path !== undefined) return `${TOOL_VERBS.get(request.tool) ?? request.tool} ${clip(request.path)}`;
  return request.tool;
}

/** A session rule in words: "`npm test` (and the same with more arguments)", "every Edit". */
export function describeRule(rule: PermissionRule): string {
  return rule.commandPrefix === undefined ? `every ${rule.tool}` : `\`${rule.commandPrefix}\` (with any plain arguments)`;
}

/** The transcript entry of an outcome: what was asked, the answer, by whom. */
export function outcomeText(outcome: PermissionOutcomeView, rule?: PermissionRule): string {
  const message = outcome.message !== undefined && outcome.message !== '' ? `: “${outcome.message}”` : '';
  const on = outcome.byName === null ? '' : ` on ${outcome.byName}`;
  switch (outcome.via) {
    case 'user':
      if (outcome.decision === 'allow-session')
        return `Permission to ${outcome.asked}: allowed for this session${on}${rule ? ` (from now on ${describeRule(rule)})` : ''}.`;
      return outcome.decision === 'deny'
        ? `Permission to ${outcome.asked}: denied${on}${message}.`
        : `Permission to ${outcome.asked}: allowed${on}.`;
    case 'rule':
      return `Permission to ${outcome.asked}: allowed by this session's rule${rule ? ` (${describeRule(rule)})` : ''}.`;
    case 'withdrawn':
      return `Permission to ${outcome.asked}: no longer asked${message}.`;
    default:
      return `Permission to ${outcome.asked}: denied by Baton${message}`;
  }
}
