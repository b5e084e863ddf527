// Loaded with `node --import` into both sides' processes: at exit, writes the process's own CPU
// time (user + system, from its start) as the last line of stderr, `cpu-ms <n>`.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  const used = process.cpuUsage();
  writeSync(2, `\ncpu-ms ${(used.user + used.system) / 1000}\n`);
});
