/** Human formatting shared by CLI commands. */

export function bytesHuman(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${units[u]}`;
}

/**
 * 17962108 -> "17,962,108", as toLocaleString('en-US') writes it. Whole numbers are
 * grouped here: the first toLocaleString of a process loads ICU's number formats,
 * ~15 ms, more than a small command's own work (docs/BENCHMARKS.md, "Whole process").
 */
export function count(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += ',' + digits.slice(i, i + 3);
  return n < 0 ? '-' + out : out;
}

/**
 * A one-line progress bar on a terminal (stderr), redrawn in place; nothing when
 * stderr is not a TTY, so pipes and --json output stay clean.
 */
export function progressBar(stream: NodeJS.WritableStream & { isTTY?: boolean }, label: string) {
  let drawn = false;
  let last = 0;
  return {
    update(done: number, total: number): void {
      if (!stream.isTTY || total <= 0) return;
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      const width = 30;
      const frac = Math.min(1, done / total);
      const full = Math.round(frac * width);
      stream.write(
        `\r${label} [${'#'.repeat(full)}${'-'.repeat(width - full)}] ${(frac * 100).toFixed(0).padStart(3)}% ${bytesHuman(done)} / ${bytesHuman(total)}`,
      );
      drawn = true;
    },
    clear(): void {
      if (drawn) stream.write('\r\x1b[2K');
      drawn = false;
    },
  };
}
