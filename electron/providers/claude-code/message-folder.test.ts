import { describe, expect, it } from 'vitest';
import { SessionState } from '../session-state.ts';
import { MessageFolder } from './message-folder.ts';

function folded(userText: boolean): { state: SessionState; folder: MessageFolder } {
  const state = new SessionState(() => 1, 't');
  state.upsertAgent({ id: 'main', parentId: null, name: 'Claude Code', role: 'main', status: 'running' });
  return { state, folder: new MessageFolder(state, { userText }) };
}

const task = (id: string, description: string) => ({
  type: 'tool_use',
  id,
  name: 'Task',
  input: { description, prompt: 'p', subagent_type: 'explorer' },
});

describe('Claude message folding', () => {
  it('puts a Task called by a subagent under that subagent', () => {
    const { state, folder } = folded(false);
    folder.fold('assistant', [task('t1', 'outer')], null);
    folder.fold('assistant', [task('t2', 'inner')], 't1');
    folder.fold('assistant', [{ type: 'text', text: 'inner work' }], 't2');
    const agents = state.snapshot().agents;
    expect(agents.map((a) => [a.id, a.parentId, a.role])).toEqual([
      ['main', null, 'main'],
      ['t1', 'main', 'explorer'],
      ['t2', 't1', 'explorer'],
    ]);
    expect(state.snapshot().transcript.at(-1)).toMatchObject({ agentId: 't2', role: 'assistant', text: 'inner work' });
  });

  it('marks a subagent failed when its tool_result is an error', () => {
    const { state, folder } = folded(false);
    folder.fold('assistant', [task('t1', 'search')], null);
    folder.fold('user', [{ type: 'tool_result', tool_use_id: 't1', is_error: true, content: 'quota' }], null);
    expect(state.agent('t1')?.status).toBe('failed');
    expect(state.snapshot().transcript.at(-1)?.text).toBe('Subagent "search" failed: quota');
  });

  it("leaves the user's own text out of the live stream but keeps it from files", () => {
    const live = folded(false);
    live.folder.fold('user', 'hello', null);
    expect(live.state.snapshot().transcript).toEqual([]);
    const file = folded(true);
    file.folder.fold('user', 'hello', null);
    expect(file.state.snapshot().transcript.map((e) => [e.role, e.text])).toEqual([['user', 'hello']]);
  });
});
