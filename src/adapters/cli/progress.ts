// One line of progress on a terminal, rewritten in place; nothing when not a terminal.
import type { WriteStream } from 'node:tty';

export interface ProgressLine {
  update(text: string): void;
  clear(): void;
}

export function progressLine(stream: NodeJS.WriteStream | WriteStream): ProgressLine {
  if (!stream.isTTY) return { update: () => {}, clear: () => {} };
  let last = 0;
  return {
    update(text) {
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      const width = (stream.columns ?? 100) - 1;
      stream.write(`\r${text.slice(0, width).padEnd(width)}`);
    },
    clear() {
      stream.write(`\r${' '.repeat((stream.columns ?? 100) - 1)}\r`);
    },
  };
}
