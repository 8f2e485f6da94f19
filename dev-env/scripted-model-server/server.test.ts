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
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
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

  it("matches its rules on the person's words after Baton's note, and quotes the whole text otherwise", async () => {
    const note = 'Baton: this session just moved from the device "laptop" to "desktop"; you now run on desktop.';
    const reply = async (text: string) =>
      (await events(await post('/v1/messages', { model: 'm', stream: true, messages: [user('first'), user(text)] })))
        .flatMap((e) => (e.type === 'content_block_delta' ? [(e.delta as { text: string }).text] : []))
        .join('');
    expect(await reply(`${note}\n\nwhat did I say first?`)).toBe('I remember: first');
    expect(await reply(`${note}\n\nwhere were we?`)).toBe(`Scripted reply to: ${note}\n\nwhere were we?`);
    expect(await reply('Baton: say hello')).toBe('Scripted reply to: Baton: say hello');
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

  it("answers Copilot's Chat Completions calls: its own tools, history without its datetime block, the closing text", async () => {
    const tools = ['bash', 'view', 'create', 'edit'].map((name) => ({ type: 'function', function: { name } }));
    const system = { role: 'system', content: 'You are GitHub Copilot.\n* Current working directory: /ws\n' };
    const said = (text: string) => ({ role: 'user', content: `<current_datetime>2026-01-01T00:00:00Z</current_datetime>\n\n${text}` });
    const calls = async (text: string) => {
      const chunks = await events(await post('/v1/chat/completions', { stream: true, tools, messages: [system, said(text)] }));
      type Delta = { tool_calls?: { function: { name?: string; arguments: string } }[] };
      const deltas = chunks.flatMap((c) => (c.choices as { delta: Delta }[]).map((choice) => choice.delta.tool_calls?.[0]?.function));
      const name = deltas.find((f) => f?.name !== undefined)?.name;
      return { name, input: JSON.parse(deltas.map((f) => f?.arguments ?? '').join('')) as unknown };
    };
    expect(await calls('write file a.txt with hi')).toEqual({ name: 'create', input: { path: '/ws/a.txt', file_text: 'hi\n' } });
    expect(await calls('edit file a.txt replacing hi with yo')).toEqual({
      name: 'edit',
      input: { path: '/ws/a.txt', old_str: 'hi', new_str: 'yo' },
    });
    expect((await calls('run command npm test')).input).toMatchObject({ command: 'npm test' });
    const denied = [
      system,
      said('my word is pear'),
      said('run command npm test'),
      { role: 'tool', content: 'The user rejected this tool call.' },
    ];
    const closing = (await (await post('/v1/chat/completions', { tools, messages: denied })).json()) as {
      choices: { message: { content: string }; finish_reason: string }[];
    };
    expect(closing.choices[0]).toMatchObject({
      message: { content: 'The tool call failed: The user rejected this tool call.' },
      finish_reason: 'stop',
    });
    expect(server.requests.at(-1)).toMatchObject({ api: 'openai-chat', userTexts: ['my word is pear', 'run command npm test'] });
  });

  it("answers Qwen Code's calls: write_file and run_shell_command, its context message left out, its memory extraction", async () => {
    const tools = ['write_file', 'edit', 'run_shell_command'].map((name) => ({ type: 'function', function: { name } }));
    const context = {
      role: 'user',
      content: [
        {
          type: 'text',
          text: "This is the Qwen Code. We are setting up the context for our chat.\nI'm currently working in the directory: /q\n",
        },
      ],
    };
    const messages = (text: string) => [
      context,
      { role: 'assistant', content: 'Got it.' },
      { role: 'user', content: [{ type: 'text', text }] },
    ];
    const reply = async (text: string) =>
      (
        (await (await post('/v1/chat/completions', { tools, messages: messages(text) })).json()) as {
          choices: { message: Record<string, unknown> }[];
        }
      ).choices[0]?.message;
    expect(await reply('write file b.txt with yo')).toMatchObject({
      tool_calls: [
        { type: 'function', function: { name: 'write_file', arguments: JSON.stringify({ file_path: '/q/b.txt', content: 'yo\n' }) } },
      ],
    });
    expect(await reply('edit file b.txt replacing yo with hey')).toMatchObject({
      tool_calls: [
        { function: { name: 'edit', arguments: JSON.stringify({ file_path: '/q/b.txt', old_string: 'yo', new_string: 'hey' }) } },
      ],
    });
    expect(await reply('Managed memory directory: `/m`\n\nScan the recent conversation history')).toMatchObject({
      content: 'Nothing durable to remember.',
    });
    expect(server.requests.at(-1)?.userTexts).toEqual(['Managed memory directory: `/m`\n\nScan the recent conversation history']);
    const ran = [
      ...messages('run command echo hi'),
      { role: 'tool', content: [{ type: 'text', text: 'Output: hi\nError: (none)\nExit Code: 0' }] },
    ];
    const done = (await (await post('/v1/chat/completions', { tools, messages: ran })).json()) as {
      choices: { message: { content: string } }[];
    };
    expect(done.choices[0]?.message.content).toBe('Command output: Output: hi\nError: (none)\nExit Code: 0');
  });

  it('answers "error NNN" in each API\'s error format and records an unknown route as a 404', async () => {
    const anthropic = await post('/v1/messages', { messages: [user('error 429')] });
    expect([anthropic.status, await anthropic.json()]).toEqual([
      429,
      { type: 'error', error: { type: 'rate_limit_error', message: 'Scripted error 429' } },
    ]);
    const openai = await post('/v1/responses', { input: [responsesUser('error 400')] });
    expect(openai.status).toBe(400);
    const chat = await post('/v1/chat/completions', { messages: [user('error 500')] });
    expect([chat.status, ((await chat.json()) as { error: { type: string } }).error.type]).toEqual([500, 'server_error']);
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
