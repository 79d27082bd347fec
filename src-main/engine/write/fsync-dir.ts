/** Make a directory's entries durable (a created, renamed or removed name): open it and fsync. */
import { closeSync, fsyncSync, openSync } from 'node:fs';

export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
