/**
 * Claude Code's transcript file (one JSON object a line: `summary`, `user`, `assistant`, … lines
 * threaded by `uuid` / `parentUuid`): reading it into the agent map and transcript, checking it is
 * resumable, and rewriting its `cwd` fields for another workspace.
 */
import type { AgentView, TranscriptEntry } from '../../../shared/agents.ts';
import type { Result } from '../../../shared/errors.ts';
import { movePath, parseJsonLines, readableLines } from '../json-lines.ts';
import { SessionState } from '../session-state.ts';
import { MAIN_AGENT, MessageFolder } from './message-folder.ts';

/**
 * A transcript is resumable when every line is a JSON object, at least one line has a `uuid`, and
 * every `leafUuid` (summary lines) points at a line's `uuid`. Resolves to the number of lines.
 */
export function checkResumable(text: string): Result<number, 'not_resumable'> {
  const parsed = parseJsonLines(text);
  if (!parsed.ok) return { ok: false, code: 'not_resumable', message: `The Claude transcript is damaged: ${parsed.message}.` };
  const uuids = new Set(parsed.value.flatMap((line) => (typeof line.uuid === 'string' ? [line.uuid] : [])));
  if (uuids.size === 0)
    return { ok: false, code: 'not_resumable', message: 'The Claude transcript has no message lines (no line has a uuid).' };
  for (const line of parsed.value) {
    if (line.leafUuid !== undefined && (typeof line.leafUuid !== 'string' || !uuids.has(line.leafUuid))) {
      return {
        ok: false,
        code: 'not_resumable',
        message: `The Claude transcript's summary points at a message that is not in it (leafUuid ${String(line.leafUuid)}).`,
      };
    }
  }
  return { ok: true, value: parsed.value.length };
}

/** Rewrites every line's `cwd` from the source workspace to the target; other content is kept as is. */
export function rewriteCwd(text: string, from: string, to: string): Result<string, 'malformed'> {
  const parsed = parseJsonLines(text);
  if (!parsed.ok) return parsed;
  const out = parsed.value.map((line) =>
    JSON.stringify(typeof line.cwd === 'string' ? { ...line, cwd: movePath(line.cwd, from, to) } : line),
  );
  return { ok: true, value: out.length === 0 ? '' : `${out.join('\n')}\n` };
}

function timestampOf(line: Record<string, unknown>, fallback: number): number {
  const parsed = typeof line.timestamp === 'string' ? Date.parse(line.timestamp) : NaN;
  return Number.isNaN(parsed) ? fallback : parsed;
}

/**
 * Reads a transcript file into the agent map and transcript: the main agent, one subagent per
 * `Task` call (done once its tool_result is in the file), and the user/assistant/tool entries.
 * Sidechain lines (a subagent's own messages) are left to the subagent. Unreadable lines are skipped.
 */
export function readTranscript(text: string): { agents: AgentView[]; transcript: TranscriptEntry[]; sessionId: string | null } {
  let at = 0;
  const state = new SessionState(() => at, 'claude');
  const folder = new MessageFolder(state, { userText: true });
  let sessionId: string | null = null;
  for (const line of readableLines(text)) {
    if ((line.type !== 'user' && line.type !== 'assistant') || line.isSidechain === true) continue;
    at = timestampOf(line, at);
    if (typeof line.sessionId === 'string') sessionId = line.sessionId;
    if (!state.agent(MAIN_AGENT))
      state.upsertAgent({ id: MAIN_AGENT, parentId: null, name: 'Claude Code', role: 'main', status: 'waiting' });
    const message = line.message as Record<string, unknown> | undefined;
    folder.fold(line.type, message?.content, null);
  }
  return { ...state.snapshot(), sessionId };
}
