import { describe, expect, it } from 'vitest';
import { packetPath, parsePacket, parseUtc, renderPacket, slugOfBranch, slugProblem, type Packet } from './packet-format.ts';

const packet: Packet = {
  verified: {
    branch: 'feature/x',
    head_sha: 'a'.repeat(40),
    base_ref: 'origin/main',
    merge_base: null,
    changed_files: ['a b.ts', '0123'],
    created_at: '2026-11-30T00:00:00.000Z',
    provider: 'claude-code',
    merge_base_error: 'origin/main does not resolve to a commit',
  },
  asserted: {
    goal: '  leading spaces\nand "quotes"',
    acceptance_criteria: '',
    scope_assumptions: '## not a heading\n\\## nor this',
    current_state: '\n\nstarts blank',
    next_action: 'ends with newline\n',
    verification: [{ claim: 'multi\nline | pipe \\ slash', probe: '', result: 'not run' }],
    extra_sections: { Notes: 'A person wrote this.\n\n### with a sub-heading\n- and a list' },
  },
};

describe('packet format', () => {
  it('round-trips facts and prose exactly through render and parse', () => {
    const parsed = parsePacket(renderPacket(packet));
    expect(parsed).toEqual({ ok: true, packet });
  });

  it('keeps sections a person added under unknown headings apart, verbatim and in file order', () => {
    const file = renderPacket({ ...packet, asserted: { ...packet.asserted, extra_sections: {} } }).replace(
      '## Current state',
      '## Notes\n\nAsk Dana before merging.\n## Goal-ish\n\n## Risks\n\nThe migration is slow.\n  ## indented is text\n\n## Current state',
    );
    const parsed = parsePacket(file);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.packet.asserted).toEqual({
      ...packet.asserted,
      extra_sections: { Notes: 'Ask Dana before merging.', 'Goal-ish': '', Risks: 'The migration is slow.\n  ## indented is text' },
    });
    expect(Object.keys(parsed.packet.asserted.extra_sections)).toEqual(['Notes', 'Goal-ish', 'Risks']);
  });

  it('keeps both texts of a heading a person used twice, and reads its own rendering back the same', () => {
    const file = `${renderPacket({ ...packet, asserted: { ...packet.asserted, extra_sections: {} } })}\n## Notes\n\none\n\n## Notes\n\ntwo\n`;
    const parsed = parsePacket(file);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.packet.asserted.extra_sections).toEqual({ Notes: 'one\n\n## Notes\n\ntwo' });
    expect(parsePacket(renderPacket(parsed.packet))).toEqual(parsed);
  });

  it('reads CRLF files the same as LF files', () => {
    const parsed = parsePacket(
      renderPacket({ ...packet, asserted: { ...packet.asserted, goal: 'g', current_state: 'c' } }).replace(/\n/g, '\r\n'),
    );
    expect(parsed.ok && parsed.packet.asserted.goal).toBe('g');
  });

  it('maps branches to slugs and slugs to docs/handoffs paths', () => {
    expect(slugOfBranch('team/a/task')).toBe('team-a-task');
    expect(packetPath('team-a-task')).toBe('docs/handoffs/team-a-task.md');
  });

  it('rejects slugs that could escape or hide: ../x, a/b, .., .hidden, empty', () => {
    for (const slug of ['../x', 'a/b', '..', '.hidden', '', 'a\\b', 'a b', 'x\u0000']) expect(slugProblem(slug)).toBeDefined();
    for (const slug of ['main', 'feature-login', 'v1.2_fix+x', 'été']) expect(slugProblem(slug)).toBeUndefined();
  });

  it('reads naive timestamps as UTC', () => {
    expect(parseUtc('2026-11-30T00:00:00')).toBe(Date.UTC(2026, 10, 30));
    expect(parseUtc('2026-11-30 06:00')).toBe(Date.UTC(2026, 10, 30, 6));
    expect(parseUtc('2026-11-30')).toBe(Date.UTC(2026, 10, 30));
    expect(parseUtc('2026-11-30T02:00:00+02:00')).toBe(Date.UTC(2026, 10, 30));
    expect(parseUtc('yesterday')).toBeNaN();
  });
});
