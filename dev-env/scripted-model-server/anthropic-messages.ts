/** The Anthropic Messages half (`POST /v1/messages`, what Claude Code calls): SSE when `stream: true`, else JSON. */
import { str, type Json } from './conversation.ts';
import type { Reply } from './rules.ts';
import { jsonError, sse, startEventStream, textChunks, usageOf, type Streamer } from './stream.ts';

function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  return status >= 500 ? 'api_error' : 'invalid_request_error';
}

/** Answers a Messages request with `reply`, streaming when the request asked for it. */
export async function anthropicReply(body: Json, reply: Reply, s: Streamer): Promise<void> {
  if (reply.kind === 'error')
    return jsonError(s.res, reply.status, { type: 'error', error: { type: errorType(reply.status), message: reply.message } });
  const stopReason = reply.kind === 'tool' ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: usageOf(body), output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = {
    id: s.nextId('msg'),
    type: 'message',
    role: 'assistant',
    model: str(body.model) || 'scripted',
    content: [] as Json[],
    stop_reason: null,
    stop_sequence: null,
    usage,
  };
  const toolBlock = reply.kind === 'tool' ? { type: 'tool_use', id: s.nextId('toolu'), name: reply.name, input: reply.input } : null;
  if (body.stream !== true) {
    const block = toolBlock ?? { type: 'text', text: reply.kind === 'text' ? reply.text || 'Slow reply.' : '' };
    s.res.writeHead(200, { 'content-type': 'application/json' });
    s.res.end(JSON.stringify({ ...message, content: [block], stop_reason: stopReason, usage: { ...usage, output_tokens: 10 } }));
    return;
  }
  startEventStream(s.res);
  sse(s.res, 'message_start', { type: 'message_start', message });
  sse(s.res, 'ping', { type: 'ping' });
  if (toolBlock !== null) {
    sse(s.res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { ...toolBlock, input: {} } });
    const delta = { type: 'input_json_delta', partial_json: JSON.stringify(toolBlock.input) };
    sse(s.res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta });
  } else if (reply.kind === 'text') {
    sse(s.res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    for await (const piece of textChunks(reply, s)) {
      if (s.closed()) return;
      sse(s.res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
    }
  }
  sse(s.res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
  const end = { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 10 } };
  sse(s.res, 'message_delta', end);
  sse(s.res, 'message_stop', { type: 'message_stop' });
  s.res.end();
}
