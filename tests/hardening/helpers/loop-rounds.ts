/**
 * Preloaded into a server process (`--require dist/tests/hardening/helpers/loop-rounds.js`): measures
 * each turn of its event loop (timer phase to timer phase, a 1 ms interval) by the CPU time its main
 * thread spent in it (/proc/self/task/<pid>/schedstat, nanoseconds), which is what another request
 * waits for at most besides the machine's other processes: unlike wall time it does not grow when the
 * machine is loaded. SIGUSR2 starts recording; the next SIGUSR2 stops it and writes one line
 * `loop-rounds <json>` to stderr ({count, cpuMs: [sorted], wallMs: [sorted]}).
 */
import { readFileSync } from 'node:fs';

const STAT = `/proc/self/task/${process.pid}/schedstat`;
const cpuMs = (): number => Number(readFileSync(STAT, 'utf8').split(' ')[0]) / 1e6;

let recording = false;
let cpu: number[] = [];
let wall: number[] = [];
let lastWall = performance.now();
let lastCpu = cpuMs();

process.on('SIGUSR2', () => {
  recording = !recording;
  if (recording) {
    cpu = [];
    wall = [];
    return;
  }
  const sorted = (xs: number[]): number[] => xs.map((x) => Math.round(x * 100) / 100).sort((a, b) => a - b);
  process.stderr.write(`loop-rounds ${JSON.stringify({ count: cpu.length, cpuMs: sorted(cpu), wallMs: sorted(wall) })}\n`);
});

setInterval(() => {
  const w = performance.now();
  const c = cpuMs();
  if (recording) {
    cpu.push(c - lastCpu);
    wall.push(w - lastWall);
  }
  lastWall = w;
  lastCpu = c;
}, 1).unref();
