/**
 * Lines of a file as sed prints them: the independent reference the viewer's rows are
 * checked against. sed quits after the last line asked for, so a line near the top of
 * a 1 GiB log costs a few pages of reading, not the whole file.
 */
import { execFileSync } from 'node:child_process';

/** Line `lineNo` (1-based) of `file`, without its newline. */
export function sedLine(file: string, lineNo: number): string {
  return execFileSync('sed', ['-n', `${lineNo}{p;q}`, file], { encoding: 'utf8', maxBuffer: 64 << 20 }).replace(/\n$/, '');
}

/** Lines `from`..`to` of `file`, each without its newline. */
export function sedLines(file: string, from: number, to: number): string[] {
  return execFileSync('sed', ['-n', `${from},${to}p;${to}q`, file], { encoding: 'utf8', maxBuffer: 64 << 20 })
    .replace(/\n$/, '')
    .split('\n');
}
