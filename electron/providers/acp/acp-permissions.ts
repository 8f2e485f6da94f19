/**
 * An ACP agent's `session/request_permission` as a Baton permission request (shared/permission-request.ts).
 * The agent waits for the outcome; what the session's level allows outright is answered here at
 * once — at "workspace" an edit whose every path leads inside the workspace (not its .git), at "full"
 * anything — and everything else becomes a `permission-request` event, pending until
 * answerPermission, or until the turn is interrupted or the agent stops: then the agent gets the
 * `cancelled` outcome ACP defines for it and a `permission-cancelled` event says why.
 *
 * The request's tool is ACP's kind of the call (`execute`, `edit`, `read`, `fetch`, …), its command
 * the call's `command`, its file the first location, its diff the agent's own unified diff or one
 * made from the old and new text it sends. Answers pick the agent's own options: allow and "Allow
 * for this session" → its allow-once option (the runtime keeps the session's rule; an agent's
 * "always" options may write the user's settings), deny → its reject-once option. ACP's outcome
 * carries no message, so a deny's message is kept for the agent and put ahead of the next prompt.
 */
import { isAbsolute } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import {
  clipPermissionText,
  PERMISSION_DIFF_MAX,
  type PermissionAnswer,
  type PermissionRequest,
} from '../../../shared/permission-request.ts';
import type { PermissionLevel, ProviderResult } from '../../../shared/provider.ts';
import { textDiff } from '../permissions/file-change-diff.ts';
import { insideWorkspace } from '../permissions/workspace-paths.ts';
import { PendingAsks } from '../permissions/pending-asks.ts';
import type { SessionState } from '../session-state.ts';
import { MAIN_AGENT } from '../turn-session.ts';
import { inputField } from './acp-updates.ts';

type Outcome = acp.RequestPermissionResponse;

const CANCELLED: Outcome = { outcome: { outcome: 'cancelled' } };

/** What the agent reads when a request is denied with a message (ahead of the next prompt). */
export function denialNote(request: PermissionRequest, message: string): string {
  const what = request.command !== undefined ? `run \`${request.command}\`` : `change ${request.path ?? 'the files'}`;
  return `Baton: I denied your request to ${what}: ${message}`;
}

/** Every file path a call names: its locations, its diffs, its input's path. */
function callPaths(call: acp.ToolCallUpdate): string[] {
  const paths = [
    ...(call.locations ?? []).map((location) => location.path),
    ...(call.content ?? []).flatMap((item) => (item.type === 'diff' ? [item.path] : [])),
    inputField(call.rawInput, 'path', 'file_path', 'fileName'),
  ];
  return [...new Set(paths.filter((path): path is string => path !== undefined && isAbsolute(path)))];
}

/** The diff a request shows: the agent's own unified diff, else one made from the old and new text it sends. */
function callDiff(call: acp.ToolCallUpdate): string | undefined {
  const own = inputField(call.rawInput, 'diff');
  if (own !== undefined)
    return own.length <= PERMISSION_DIFF_MAX ? own.replace(/^\n/, '') : `${own.slice(0, PERMISSION_DIFF_MAX - 50)}\n… (cut)\n`;
  const diffs = (call.content ?? []).flatMap((item) =>
    item.type === 'diff' ? [textDiff(item.path, item.oldText ?? '', item.newText)] : [],
  );
  return diffs.length === 0 ? undefined : diffs.join('').slice(0, PERMISSION_DIFF_MAX);
}

/** The option of `kind` the agent offers (its first allow or reject option when it has no "once" one). */
function optionOf(options: readonly acp.PermissionOption[], kind: 'allow' | 'reject'): string | null {
  const once = options.find((option) => option.kind === `${kind}_once`);
  return (once ?? options.find((option) => option.kind.startsWith(kind)))?.optionId ?? null;
}

const selected = (optionId: string | null): Outcome => (optionId === null ? CANCELLED : { outcome: { outcome: 'selected', optionId } });

export class AcpPermissions {
  private readonly pending: PendingAsks<{ request: PermissionRequest; options: acp.PermissionOption[]; reply(outcome: Outcome): void }>;
  private readonly notes: string[] = [];
  private count = 0;

  constructor(
    private readonly label: string,
    private readonly level: PermissionLevel,
    state: SessionState,
  ) {
    this.pending = new PendingAsks(state);
  }

  /** True while any request waits for its answer. */
  get waiting(): boolean {
    return this.pending.size > 0;
  }

  /**
   * Takes one request of the agent: answered at once when the level allows it outright, else
   * reported and kept pending; resolves with the outcome the agent gets. `workspace`: the session's
   * (an edit is inside it only when where its paths lead is: workspace-paths.ts).
   */
  async ask(asked: acp.RequestPermissionRequest, workspace: string | null): Promise<Outcome> {
    const call = asked.toolCall;
    const paths = callPaths(call);
    const allowed =
      this.level === 'full' ||
      (this.level === 'workspace' && call.kind === 'edit' && workspace !== null && (await insideWorkspace(paths, workspace)));
    if (allowed) return selected(optionOf(asked.options, 'allow'));
    const request = this.requestOf(call, paths);
    return new Promise((reply) => this.pending.add(request, { request, options: asked.options, reply }));
  }

  /** Answers pending request `id` (shared/provider.ts answerPermission); `request_not_pending` for any other id. */
  async answer(id: string, answer: PermissionAnswer): Promise<ProviderResult> {
    const pending = this.pending.take(id);
    if (pending === undefined)
      return { ok: false, code: 'request_not_pending', message: `${this.label} is not waiting for an answer to ${id}.` };
    const deny = answer.decision === 'deny';
    const message = answer.message?.trim();
    if (deny && message) this.notes.push(denialNote(pending.request, message));
    pending.reply(selected(optionOf(pending.options, deny ? 'reject' : 'allow')));
    return { ok: true, value: undefined };
  }

  /** Cancels every pending request (an interrupt, a stop, the agent gone), each reported with `reason`. */
  cancelAll(reason: string): void {
    for (const { reply } of this.pending.cancelAll(reason)) reply(CANCELLED);
  }

  /** The messages of denies not yet told to the agent (each once), for the next prompt. */
  takeNotes(): string[] {
    return this.notes.splice(0);
  }

  private requestOf(call: acp.ToolCallUpdate, paths: readonly string[]): PermissionRequest {
    this.count += 1;
    const id = `${this.count}:${call.toolCallId}`.slice(0, 200);
    const tool = call.kind ?? 'other';
    const command = tool === 'execute' ? inputField(call.rawInput, 'command') : undefined;
    const base = { id, agent: MAIN_AGENT, tool };
    if (command !== undefined) return { ...base, command: clipPermissionText(command) };
    const diff = callDiff(call);
    const path = paths[0];
    if (path !== undefined && (tool === 'edit' || tool === 'delete' || tool === 'move' || diff !== undefined)) {
      return { ...base, path: clipPermissionText(path), ...(diff === undefined ? {} : { diff }) };
    }
    const title = call.title ?? undefined;
    return {
      ...base,
      ...(title ? { detail: clipPermissionText(title) } : {}),
      ...(path === undefined ? {} : { path: clipPermissionText(path) }),
    };
  }
}
