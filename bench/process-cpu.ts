/** CPU time a process has used, for the benches that print where a transition's CPU goes. */
import { readFileSync } from 'node:fs';

/** CPU time (user + system, ms) process `pid` has used so far, from /proc; undefined where there is none. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}
