import type { CronJob, CronSchedule } from '../../../store/cron-db.js';

const UNITS: Array<[string, number]> = [
  ['d', 86_400],
  ['h', 3600],
  ['m', 60],
  ['s', 1],
];

/** 5400 → `1h30m`: the form `tern cron add --every` takes. */
export function formatSeconds(seconds: number): string {
  let rest = seconds;
  const parts: string[] = [];
  for (const [unit, size] of UNITS) {
    if (rest < size) continue;
    parts.push(`${Math.floor(rest / size)}${unit}`);
    rest %= size;
  }
  return parts.join('');
}

export function describeSchedule(schedule: CronSchedule): string {
  switch (schedule.kind) {
    case 'every':
      return `every ${formatSeconds(schedule.seconds)}`;
    case 'at':
      return `once at ${schedule.at}`;
    case 'cron':
      return `cron "${schedule.expr}"${schedule.tz ? ` ${schedule.tz}` : ''}`;
  }
}

export function describeTask(task: CronJob['job']): string {
  switch (task.kind) {
    case 'deliver':
      return `deliver to ${task.channel}/${task.chat}`;
    case 'agent_turn':
      return `agent turn${task.agent ? ` (${task.agent})` : ''} for ${task.channel}/${task.chat}`;
    case 'command':
      return `command "${task.command}"${task.channel && task.chat ? ` for ${task.channel}/${task.chat}` : ''}`;
  }
}
