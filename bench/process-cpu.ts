/** CPU time a process has used, for the benches that print where a transition's CPU goes. */
import { readFileSync } from 'node:fs';

/** The process's own and its ended children's CPU (user + system, ms), from /proc; undefined where there is none. */
function cpuFields(pid: number): { own: number; children: number } | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const ms = (i: number, j: number) => ((Number(fields[i]) + Number(fields[j])) * 1000) / 100;
    return { own: ms(11, 12), children: ms(13, 14) };
  } catch {
    return undefined;
  }
}

/** CPU time (user + system, ms) process `pid` has used so far, from /proc; undefined where there is none. */
export function processCpuMs(pid: number): number | undefined {
  return cpuFields(pid)?.own;
}

/** CPU time (user + system, ms) of the processes `pid` started and has seen end (its git commands), from /proc. */
export function childrenCpuMs(pid: number): number | undefined {
  return cpuFields(pid)?.children;
}
