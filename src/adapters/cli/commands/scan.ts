import type { Command } from 'commander';

// Placeholder until the static-analysis work lands (issue 3).
export function registerScan(program: Command): void {
  program.command('scan').description('static analysis (being built)').action(() => {
    throw new Error('crashprobe scan is not built yet');
  });
}
