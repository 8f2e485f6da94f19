import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from './server.ts';

let server: ScriptedModelServer;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-scripted-'));
  server = await startScriptedModelServer({ slowChunkMs: 20, slowChunks: 500, socketPath: join(dir, 'model.sock') });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
/** The `data:` payloads of a server-sent event stream. */
const events = async (res: Response): Promise<Record<string, unknown>[]> =>
  (await res.text())
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
type Message = { content: { type: string; id: string; text?: string }[] };
const responsesUser = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });

describe('scripted model server', () => {
  it('streams an Anthropic Messages reply and answers from the history it received, skipping injected blocks', async () => {
    const messages = [user('my word is apple'), { role: 'assistant', content: 'ok' }, user('<system-reminder>x</system-reminder>')];
    messages.push(user('what did I say first?'));
    const res = await post('/v1/messages', { model: 'm', stream: true, messages }, { 'x-api-key': 'sk-secret' });
    const text = (await events(res))
      .flatMap((e) => (e.type === 'content_block_delta' ? [(e.delta as { text: string }).text] : []))
      .join('');
    expect(text).toBe('I remember: my word is apple');
    expect(server.requests.at(-1)).toMatchObject({
      api: 'anthropic-messages',
      userTexts: ['my word is apple', 'what did I say first?'],
      reply: 'text',
      headers: { 'x-api-key': '[redacted]' },
    });
  });

  it("writes a file with Claude's Write in the new working directory of a moved session, then closes the turn", async () => {
    const system = [{ type: 'text', text: 'Primary working directory: /new/ws (was /old/ws)\nmore' }];
    const tools = [{ name: 'Write' }, { name: 'Bash' }];
    const call = (await (await post('/v1/messages', { system, tools, messages: [user('write file a.txt with hi')] })).json()) as Message;
    expect(call.content).toEqual([
      { type: 'tool_use', id: expect.any(String), name: 'Write', input: { file_path: '/new/ws/a.txt', content: 'hi\n' } },
    ]);
    const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.content[0]?.id, content: 'ok' }] };
    const done = (await (await post('/v1/messages', { tools, messages: [user('write file a.txt with hi'), result] })).json()) as Message;
    expect(done.content).toEqual([{ type: 'text', text: 'Wrote a.txt.' }]);
  });

  it("edits a file with Claude's Edit (what it replaces, with what), or Codex's apply_patch Update File, then closes the turn", async () => {
    const system = [{ type: 'text', text: 'Primary working directory: /ws\nmore' }];
    const ask = user('edit file notes.txt replacing beta with BETA');
    const call = (await (await post('/v1/messages', { system, tools: [{ name: 'Edit' }], messages: [ask] })).json()) as Message;
    expect(call.content).toEqual([
      {
        type: 'tool_use',
        id: expect.any(String),
        name: 'Edit',
        input: { file_path: '/ws/notes.txt', old_string: 'beta', new_string: 'BETA' },
      },
    ]);
    const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.content[0]?.id, content: 'ok' }] };
    const done = (await (await post('/v1/messages', { tools: [{ name: 'Edit' }], messages: [ask, result] })).json()) as Message;
    expect(done.content).toEqual([{ type: 'text', text: 'Edited notes.txt.' }]);
    const tools = [{ type: 'custom', name: 'apply_patch' }];
    const patch = (
      await events(await post('/v1/responses', { stream: true, tools, input: [responsesUser('edit file n.txt replacing a with b')] }))
    ).find((e) => e.type === 'response.output_item.done');
    expect(patch?.item).toMatchObject({ name: 'apply_patch', input: expect.stringContaining('*** Update File: n.txt\n@@\n-a\n+b\n') });
  });

  it("answers Codex's Responses calls: apply_patch when offered, the shell on request, a failed call's output", async () => {
    const tools = [
      { type: 'function', name: 'exec_command' },
      { type: 'custom', name: 'apply_patch' },
    ];
    const patch = (
      await events(await post('/v1/responses', { stream: true, tools, input: [responsesUser('write file b.txt with yo')] }))
    ).find((e) => e.type === 'response.output_item.done');
    expect(patch?.item).toMatchObject({
      type: 'custom_tool_call',
      name: 'apply_patch',
      input: expect.stringContaining('*** Add File: b.txt\n+yo'),
    });
    const shell = (
      await events(await post('/v1/responses', { tools, input: [responsesUser('write file b.txt with yo using shell')] }))
    ).find((e) => e.type === 'response.output_item.done');
    expect(shell?.item).toMatchObject({ type: 'function_call', name: 'exec_command' });
    const failed = [responsesUser('run command x'), { type: 'function_call_output', call_id: 'c', output: 'Process exited with code 1' }];
    const answer = (await events(await post('/v1/responses', { tools, input: failed }))).find(
      (e) => e.type === 'response.output_text.done',
    );
    expect(answer?.text).toBe('The tool call failed: Process exited with code 1');
  });

  it('runs "run command twice" twice in one turn, then closes it; a new user text starts the count again', async () => {
    const tools = [{ type: 'function', name: 'exec_command' }];
    const output = (n: number) => ({ type: 'function_call_output', call_id: `c${n}`, output: `Process exited with code 0\nrun ${n}` });
    const reply = async (input: unknown[]) =>
      (await events(await post('/v1/responses', { tools, input }))).find((e) => e.type === 'response.output_item.done')?.item;
    const ask = responsesUser('run command twice echo hi');
    expect(await reply([ask])).toMatchObject({ type: 'function_call', arguments: JSON.stringify({ cmd: 'echo hi' }) });
    expect(await reply([ask, output(1)])).toMatchObject({ type: 'function_call', arguments: JSON.stringify({ cmd: 'echo hi' }) });
    expect(await reply([ask, output(1), output(2)])).toMatchObject({ type: 'message' });
    expect(await reply([ask, output(1), output(2), ask])).toMatchObject({ type: 'function_call' });
  });

  it('answers "error NNN" in each API\'s error format and records an unknown route as a 404', async () => {
    const anthropic = await post('/v1/messages', { messages: [user('error 429')] });
    expect([anthropic.status, await anthropic.json()]).toEqual([
      429,
      { type: 'error', error: { type: 'rate_limit_error', message: 'Scripted error 429' } },
    ]);
    const openai = await post('/v1/responses', { input: [responsesUser('error 400')] });
    expect(openai.status).toBe(400);
    expect((await post('/v1/elsewhere', {})).status).toBe(404);
    expect(server.requests.at(-1)).toMatchObject({ path: '/v1/elsewhere', api: 'other', reply: 'http 404' });
  });

  it('streams a slow reply until the client hangs up, and records the turn as aborted', async () => {
    const res = await post('/v1/responses', { stream: true, input: 'slow' });
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.requests.at(-1)).toMatchObject({ lastUserText: 'slow', reply: 'text (slow)', aborted: true });
  });

  it('serves the same on its Unix socket (what a network namespace relays to)', async () => {
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(
        { socketPath: server.socketPath!, path: '/v1/messages', method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ messages: [user('say hello')] }));
    });
    expect(JSON.parse(body).content).toEqual([{ type: 'text', text: 'Hello from the scripted model.' }]);
  });
});
