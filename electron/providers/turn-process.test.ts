import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { describeExit, startTurnProcess } from './turn-process.ts';

const node = (script: string, stdin = ''): Parameters<typeof startTurnProcess>[0] => ({
  command: process.execPath,
  args: ['-e', script],
  cwd: tmpdir(),
  env: process.env,
  stdin,
});

describe('turn process', () => {
  it('writes stdin, delivers stdout line by line and reports the exit', async () => {
    const lines: string[] = [];
    const turn = startTurnProcess(
      node(`let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{console.log('a:'+s.trim());console.log('b')})`, 'in'),
      (l) => lines.push(l),
    );
    expect(await turn.started).toBeNull();
    expect(await turn.exited).toMatchObject({ code: 0, signal: null, spawnError: null });
    expect(lines).toEqual(['a:in', 'b']);
  });

  it('keeps stdin open for answers until the input is ended, and refuses writes after', async () => {
    const lines: string[] = [];
    const script = `require('readline').createInterface({input:process.stdin}).on('line',l=>console.log('got:'+l)).on('close',()=>console.log('closed'))`;
    const turn = startTurnProcess({ ...node(script, 'first\n'), keepStdinOpen: true }, (line) => {
      lines.push(line);
      if (line === 'got:first') expect(turn.write('second\n')).toBe(true);
      if (line === 'got:second') turn.endInput();
    });
    expect(await turn.exited).toMatchObject({ code: 0 });
    expect(lines).toEqual(['got:first', 'got:second', 'closed']);
    expect(turn.write('late\n')).toBe(false);
  });

  it('keeps the end of stderr for the error message', async () => {
    const turn = startTurnProcess(node(`process.stderr.write('x'.repeat(10000)+'the end');process.exit(4)`), () => undefined);
    const exit = await turn.exited;
    expect(exit.stderrTail.length).toBe(4096);
    expect(describeExit(exit)).toMatch(/^exited with code 4: x+the end$/);
  });

  it("names the CLI's own error line, not the usage text after it (clap), and hands stderr lines to a reader", async () => {
    const clap = [
      'WARNING: proceeding, even though we could not create PATH aliases',
      "error: unexpected argument '--full-auto' found",
      '',
      "  tip: to pass '--full-auto' as a value, use '-- --full-auto'",
      '',
      'Usage: codex exec [OPTIONS] [PROMPT]',
      '       codex exec [OPTIONS] <COMMAND> [ARGS]',
      '',
      "For more information, try '--help'.",
    ].join('\n');
    const seen: string[] = [];
    const spec = { ...node(`process.stderr.write(${JSON.stringify(clap)});process.exit(2)`), onStderrLine: (l: string) => seen.push(l) };
    const exit = await startTurnProcess(spec, () => undefined).exited;
    expect(describeExit(exit)).toBe("exited with code 2: error: unexpected argument '--full-auto' found");
    expect(seen).toEqual(clap.split('\n'));
    const logged = await startTurnProcess(
      node(`console.error('2026-11-30T14:16:00Z ERROR codex_core: boom');process.exit(1)`),
      () => undefined,
    ).exited;
    expect(describeExit(logged)).toBe('exited with code 1: 2026-11-30T14:16:00Z ERROR codex_core: boom');
  });

  it('escalates to SIGKILL when SIGINT is ignored', async () => {
    // Interrupt only once the child says its SIGINT handler is in place (a busy machine may take long to start node).
    let up!: () => void;
    const handlerInPlace = new Promise<void>((resolve) => (up = resolve));
    const turn = startTurnProcess(node(`process.on('SIGINT',()=>{});console.log('up');setInterval(()=>{},1000)`), (line) => {
      if (line === 'up') up();
    });
    await handlerInPlace;
    const exit = await turn.interrupt(200);
    expect(exit.signal).toBe('SIGKILL');
  });

  it('reports a missing program as a start failure', async () => {
    const turn = startTurnProcess({ command: '/nonexistent/agent', args: [], cwd: tmpdir(), env: process.env, stdin: '' }, () => undefined);
    expect(await turn.started).toMatch(/ENOENT/);
    expect(describeExit(await turn.exited)).toMatch(/^could not start: .*ENOENT/);
  });
});
