import { Command } from 'commander';
import { registerCrash } from './commands/crash.ts';
import { registerScan } from './commands/scan.ts';

const program = new Command('crashprobe')
  .description('Crash-tests and reviews the Python functions a change touches.')
  .showHelpAfterError();

registerCrash(program);
registerScan(program);

await program.parseAsync(process.argv);
