/**
 * The OpenAI Chat Completions half (`POST /v1/chat/completions`, what GitHub Copilot CLI calls with
 * `COPILOT_PROVIDER_TYPE=openai` and Qwen Code with `OPENAI_BASE_URL`): SSE chunks ending in
 * `data: [DONE]` when `stream: true`, else one JSON completion. A tool call is a `function` tool
 * call with its arguments as JSON text.
 */
import { str, type Json } from './conversation.ts';
import type { Reply } from './rules.ts';
import { jsonError, startEventStream, textChunks, usageOf, type Streamer } from './stream.ts';

function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 429) return 'rate_limit_exceeded';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

/** The assistant message's tool call for `reply` (chat completions carry only function calls). */
function toolCall(reply: Extract<Reply, { kind: 'tool' }>, s: Streamer): Json {
  const input = typeof reply.input === 'string' ? reply.input : JSON.stringify(reply.input);
  return { id: s.nextId('call'), type: 'function', function: { name: reply.name, arguments: input } };
}

/** Answers a Chat Completions request with `reply`, streaming when the request asked for it. */
export async function chatReply(body: Json, reply: Reply, s: Streamer): Promise<void> {
  if (reply.kind === 'error') {
    return jsonError(s.res, reply.status, { error: { message: reply.message, type: errorType(reply.status), param: null, code: null } });
  }
  const head = { id: s.nextId('chatcmpl'), created: Math.floor(Date.now() / 1000), model: str(body.model) || 'scripted' };
  const input = usageOf(body);
  const usage = { prompt_tokens: input, completion_tokens: 10, total_tokens: input + 10 };
  const call = reply.kind === 'tool' ? toolCall(reply, s) : null;
  const finish = call === null ? 'stop' : 'tool_calls';
  if (body.stream !== true) {
    let text = '';
    if (reply.kind === 'text') for await (const piece of textChunks(reply, s)) text += piece;
    const message = call === null ? { role: 'assistant', content: text } : { role: 'assistant', content: null, tool_calls: [call] };
    s.res.writeHead(200, { 'content-type': 'application/json' });
    s.res.end(JSON.stringify({ ...head, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage }));
    return;
  }
  const chunk = (delta: Json, finishReason: string | null = null): void => {
    const data = { ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] };
    s.res.write(`data: ${JSON.stringify(data)}\n\n`);
  };
  startEventStream(s.res);
  if (call === null) {
    chunk({ role: 'assistant', content: '' });
    for await (const piece of textChunks(reply as Extract<Reply, { kind: 'text' }>, s)) {
      if (s.closed()) return;
      chunk({ content: piece });
    }
  } else {
    const fn = call.function as { name: string; arguments: string };
    chunk({
      role: 'assistant',
      content: null,
      tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: fn.name, arguments: '' } }],
    });
    chunk({ tool_calls: [{ index: 0, function: { arguments: fn.arguments } }] });
  }
  chunk({}, finish);
  const options = body.stream_options as { include_usage?: unknown } | undefined;
  if (options?.include_usage === true)
    s.res.write(`data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
  s.res.end('data: [DONE]\n\n');
}
