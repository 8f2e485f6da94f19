/**
 * Refusing input: a session takes the user's input only on the device that owns it, while its
 * provider runs there and no move is quiescing it. The refusal is kept durably on the session
 * (quiescing, moved, needs attention) so a restart refuses just the same.
 */
import type { InputBlock } from '../../../shared/device-api.ts';
import { fail, ok, type ActionResult } from '../../../shared/errors.ts';
import type { LocalSession, LocalState } from '../../local-state/local-state.ts';
import type { ChangeSink } from '../../ports/changes.ts';
import type { ProviderDriver } from './provider-driver.ts';

export interface SessionInputDeps {
  selfId: string;
  state: Pick<LocalState, 'readSession' | 'updateSession'>;
  driver: Pick<ProviderDriver, 'provider' | 'isRunning' | 'detach'>;
  /** Where this part tells what it changed (a session's view, or only its transcript). */
  changes: ChangeSink;
}

export class SessionInput {
  constructor(private readonly deps: SessionInputDeps) {}

  /** Why input is refused on this device right now, or null. */
  inputBlock(session: Readonly<LocalSession>): InputBlock {
    if (session.inputBlock) return session.inputBlock;
    if (session.ownerDeviceId !== this.deps.selfId)
      return { code: 'not_owner', message: 'Another device owns this session: send messages from it, or move the session here first.' };
    if (!this.deps.driver.isRunning(session.id)) return { code: 'not_running', message: 'The agent is not running on this device.' };
    return null;
  }

  /** Sends user input to the owned, accepting session; otherwise refuses with the reason. */
  async send(sessionId: string, text: string): Promise<ActionResult> {
    const session = this.deps.state.readSession(sessionId);
    if (!session) return fail('not_found', 'No such session.');
    const block = this.inputBlock(session);
    if (block) return fail(block.code, block.message);
    // After a move, the first input carries the note of where the agent now runs (once).
    const note = session.agentNote ?? undefined;
    const result = await this.deps.driver.provider(sessionId)!.send(text, note);
    if (result.ok && note !== undefined)
      this.deps.state.updateSession(sessionId, (s) => {
        s.agentNote = null;
      });
    return result.ok ? ok(undefined) : fail(result.code, result.message);
  }

  /** Durably sets (or clears) the input-rejection flag of a session. */
  setInputBlock(sessionId: string, block: InputBlock): void {
    this.deps.state.updateSession(sessionId, (s) => {
      s.inputBlock = block;
    });
    this.deps.changes.emit('sessionChanged', { sessionId });
  }

  /** Durably clears "needs attention" and the input block: the session runs here again. */
  clearAttention(sessionId: string): void {
    this.deps.state.updateSession(sessionId, (s) => {
      s.needsAttention = null;
      s.inputBlock = null;
    });
    this.deps.changes.emit('sessionChanged', { sessionId });
  }

  /** Stops driving a session this device no longer owns: provider stopped, input refused as moved. */
  async markMoved(sessionId: string): Promise<void> {
    await this.deps.driver.detach(sessionId);
    this.setInputBlock(sessionId, { code: 'moved', message: 'This session moved to another device.' });
  }
}
