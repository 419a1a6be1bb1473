import type { Command } from 'commander';

// Placeholder until the crash harness lands (issue 2).
export function registerCrash(program: Command): void {
  program.command('crash').description('crash harness (being built)').action(() => {
    throw new Error('crashprobe crash is not built yet');
  });
}
