/**
 * How long the process's own thread is held at a time while some work runs: the time it spent on
 * a CPU between two turns of a 1 ms timer (Linux's /proc/self/task/<pid>/schedstat), so time the OS
 * gave to other processes is not counted — on a machine busy with other work, the wall-clock delay
 * (`monitorEventLoopDelay`, reported beside it) is mostly that. Run in the process's main thread
 * (vitest's forks pool, or a probe), whose task id is the process id.
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The main thread's time on a CPU since it started, ns. */
function onCpuNs(): number {
  return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
}

/** Starts watching; `stop` gives the longest hold on a CPU and the longest wall-clock delay, ms. */
export function watchStalls(): { stop(): { cpuMs: number; wallMs: number } } {
  const wall = monitorEventLoopDelay({ resolution: 1 });
  wall.enable();
  let last = onCpuNs();
  let longest = 0;
  const timer = setInterval(() => {
    const now = onCpuNs();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  return {
    stop() {
      clearInterval(timer);
      wall.disable();
      longest = Math.max(longest, onCpuNs() - last);
      return { cpuMs: longest / 1e6, wallMs: wall.max / 1e6 };
    },
  };
}
