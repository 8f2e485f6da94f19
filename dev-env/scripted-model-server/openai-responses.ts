/** The OpenAI Responses half (`POST /v1/responses`, what Codex calls with `wire_api = "responses"`): always SSE. */
import { str, type Json } from './conversation.ts';
import type { Reply } from './rules.ts';
import { jsonError, sse, startEventStream, textChunks, usageOf, type Streamer } from './stream.ts';

/** The output item of a tool call: a custom tool (Codex's apply_patch takes free-form text) or a function. */
function toolItem(reply: Extract<Reply, { kind: 'tool' }>, s: Streamer): Json {
  const callId = s.nextId('call');
  return reply.custom === true
    ? { type: 'custom_tool_call', id: s.nextId('ctc'), status: 'completed', call_id: callId, name: reply.name, input: str(reply.input) }
    : {
        type: 'function_call',
        id: s.nextId('fc'),
        status: 'completed',
        call_id: callId,
        name: reply.name,
        arguments: JSON.stringify(reply.input),
      };
}

/** Answers a Responses request with `reply` as a stream of response events. */
export async function responsesReply(body: Json, reply: Reply, s: Streamer): Promise<void> {
  if (reply.kind === 'error') {
    const type = reply.status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error';
    return jsonError(s.res, reply.status, { error: { type, code: null, message: reply.message, param: null } });
  }
  let seq = 0;
  const emit = (type: string, data: Json): void => sse(s.res, type, { type, sequence_number: seq++, ...data });
  const created = Math.floor(Date.now() / 1000);
  const response = {
    id: s.nextId('resp'),
    object: 'response',
    created_at: created,
    status: 'in_progress',
    model: str(body.model) || 'scripted',
    output: [] as Json[],
  };
  startEventStream(s.res);
  emit('response.created', { response });
  emit('response.in_progress', { response });
  let item: Json;
  if (reply.kind === 'tool') {
    item = toolItem(reply, s);
    emit('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress' } });
  } else {
    const id = s.nextId('msg');
    const at = { item_id: id, output_index: 0, content_index: 0 };
    emit('response.output_item.added', {
      output_index: 0,
      item: { type: 'message', id, status: 'in_progress', role: 'assistant', content: [] },
    });
    emit('response.content_part.added', { ...at, part: { type: 'output_text', text: '', annotations: [] } });
    let text = '';
    for await (const piece of textChunks(reply, s)) {
      if (s.closed()) return;
      text += piece;
      emit('response.output_text.delta', { ...at, delta: piece });
    }
    const part = { type: 'output_text', text, annotations: [] };
    emit('response.output_text.done', { ...at, text });
    emit('response.content_part.done', { ...at, part });
    item = { type: 'message', id, status: 'completed', role: 'assistant', content: [part] };
  }
  emit('response.output_item.done', { output_index: 0, item });
  const input = usageOf(body);
  const usage = {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 10,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + 10,
  };
  emit('response.completed', { response: { ...response, status: 'completed', output: [item], usage } });
  s.res.end();
}
