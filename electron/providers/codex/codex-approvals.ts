/**
 * Codex's approval requests as Baton permission requests (shared/permission-request.ts). The app
 * server asks before a command (`item/commandExecution/requestApproval`) or a file change
 * (`item/fileChange/requestApproval`, whose change is the fileChange item already started) and waits.
 * What the session's level allows outright is answered here at once, without a request: at
 * "workspace" a change to files inside the workspace (not its .git; where the paths lead, links
 * followed and relative ones from the workspace), at "full" anything (Codex does
 * not ask then). Everything else becomes a `permission-request` event and stays pending until
 * answerPermission, until Codex withdraws it, or until the turn is interrupted or ends — then
 * Codex is told `decline` and a `permission-cancelled` event says why.
 *
 * Answers: allow → `accept`, allow-session → `acceptForSession` (Codex then stops asking for that
 * command or those files itself, within the turn; the runtime keeps the rule for later turns),
 * deny → `decline`. Codex's decline carries no message, so a deny's message is first added to the
 * running turn as input (`turn/steer`): the model reads it with the refusal.
 */
import {
  clipPermissionText,
  type PermissionAnswer,
  type PermissionDecision,
  type PermissionRequest,
} from '../../../shared/permission-request.ts';
import type { PermissionLevel, ProviderResult } from '../../../shared/provider.ts';
import { PendingAsks } from '../permissions/pending-asks.ts';
import { insideWorkspace } from '../permissions/workspace-paths.ts';
import type { SessionState } from '../session-state.ts';
import { MAIN_AGENT } from '../turn-session.ts';
import type { CommandDecision, ServerRequests, ThreadItem } from './app-server-protocol.ts';
import { changedPaths, changesDiff, commandLine } from './codex-items.ts';

/** One approval request of the running turn, with the item it is about (when its item/started came first). */
export type CodexAsk =
  | { method: 'item/commandExecution/requestApproval'; params: ServerRequests['item/commandExecution/requestApproval'][0] }
  | { method: 'item/fileChange/requestApproval'; params: ServerRequests['item/fileChange/requestApproval'][0] };

/** Writes Codex's answer to one request: `steer` first adds text to the turn (a deny's message). */
export type CodexReply = (decision: CommandDecision, steer?: string) => Promise<void>;

const DECISIONS: Readonly<Record<PermissionDecision, CommandDecision>> = {
  allow: 'accept',
  'allow-session': 'acceptForSession',
  deny: 'decline',
};

/** What the model reads, as the user's input in the turn, when a request is denied with a message. */
export function denialInput(request: PermissionRequest, message: string): string {
  const what = request.command !== undefined ? `run \`${request.command}\`` : `change ${request.path ?? 'the files'}`;
  return `I denied your request to ${what}: ${message}`;
}

export class CodexApprovals {
  private readonly pending: PendingAsks<{ request: PermissionRequest; reply: CodexReply }>;

  constructor(
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
   * Takes one request (`id` unique in the session): answers it at once when the level allows it
   * outright, else reports it and keeps it pending. `item` is the item it is about, when known;
   * `workspace` the session's (a change is inside it only when where its paths lead is: workspace-paths.ts).
   */
  async ask(id: string, ask: CodexAsk, item: ThreadItem | undefined, workspace: string | null, reply: CodexReply): Promise<void> {
    const request = this.requestOf(id, ask, item);
    const changes = item?.type === 'fileChange' ? item.changes : [];
    const allowed =
      this.level === 'full' ||
      (this.level === 'workspace' &&
        request.tool === 'fileChange' &&
        workspace !== null &&
        (await insideWorkspace(changedPaths(changes), workspace)));
    if (allowed) return reply('accept');
    this.pending.add(request, { request, reply });
  }

  /** Answers pending request `id` (shared/provider.ts answerPermission); `request_not_pending` for any other id. */
  async answer(id: string, answer: PermissionAnswer): Promise<ProviderResult> {
    const pending = this.pending.take(id);
    if (pending === undefined) return { ok: false, code: 'request_not_pending', message: `Codex is not waiting for an answer to ${id}.` };
    const message = answer.message?.trim();
    const steer = answer.decision === 'deny' && message ? denialInput(pending.request, message) : undefined;
    await pending.reply(DECISIONS[answer.decision], steer);
    return { ok: true, value: undefined };
  }

  /** Codex no longer waits for `id` (it withdrew the request): it is cancelled. */
  withdrawn(id: string): void {
    this.pending.cancel(id, 'Codex withdrew the request.');
  }

  /** Declines every pending request (an interrupt, a stop, the turn's end) and reports each cancelled with `reason`. */
  async cancelAll(reason: string): Promise<void> {
    for (const { reply } of this.pending.cancelAll(reason)) await reply('decline');
  }

  private requestOf(id: string, ask: CodexAsk, item: ThreadItem | undefined): PermissionRequest {
    const reason = ask.params.reason ? { reason: clipPermissionText(ask.params.reason) } : {};
    if (ask.method === 'item/commandExecution/requestApproval') {
      const line = ask.params.command ?? (item?.type === 'commandExecution' ? item.command : '');
      return { id, agent: MAIN_AGENT, tool: 'commandExecution', command: clipPermissionText(commandLine(line)), ...reason };
    }
    const changes = item?.type === 'fileChange' ? item.changes : [];
    const path = changes[0]?.path;
    const file = path === undefined ? {} : { path: clipPermissionText(path), diff: changesDiff(changes) };
    return { id, agent: MAIN_AGENT, tool: 'fileChange', ...file, ...reason };
  }
}
