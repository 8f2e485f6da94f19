import { describe, expect, it } from 'vitest';
import { checkResumeData, isProviderId, PROVIDER_IDS, PROVIDER_LABELS, RESUME_DATA_MAX_BYTES } from './provider.ts';

describe('provider contract', () => {
  it('labels every provider, the demo one as such', () => {
    expect(PROVIDER_IDS.map((id) => PROVIDER_LABELS[id])).toEqual([
      'Demo agent',
      'Claude Code',
      'Codex',
      'GitHub Copilot CLI',
      'Qwen Code',
      'Command-line agent',
    ]);
    expect(isProviderId('codex')).toBe(true);
    expect(isProviderId('gpt')).toBe(false);
  });

  it('accepts JSON-safe resume data with a format tag', () => {
    const data = { provider: 'codex', format: 'codex/rollout@1', sessionId: 'abc', payload: { lines: ['{}'] } };
    expect(checkResumeData(data)).toEqual({ ok: true, value: data });
  });

  it('rejects resume data of an unknown provider or without a format', () => {
    expect(checkResumeData({ provider: 'gpt', format: 'x', sessionId: null, payload: null })).toMatchObject({
      ok: false,
      code: 'invalid_resume_data',
    });
    expect(checkResumeData({ provider: 'demo', sessionId: null, payload: null })).toMatchObject({ ok: false, code: 'invalid_resume_data' });
  });

  it('rejects resume data over the size bound', () => {
    const payload = 'é'.repeat(RESUME_DATA_MAX_BYTES / 2 + 1);
    expect(checkResumeData({ provider: 'demo', format: 'demo/state@1', sessionId: null, payload })).toMatchObject({
      ok: false,
      code: 'resume_data_too_large',
    });
  });
});
