import { Command } from 'commander';
import { registerCrash } from './commands/crash.ts';
import { registerEvalAudit } from './commands/eval-audit.ts';
import { registerReview } from './commands/review.ts';
import { registerScan } from './commands/scan.ts';

const program = new Command('crashprobe')
  .description('Crash-tests and reviews the Python functions a change touches.')
  .showHelpAfterError();

registerCrash(program);
registerScan(program);
registerReview(program);
registerEvalAudit(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // A clear message naming the file, line or field; the stack only on request.
  process.stderr.write(`crashprobe: ${error instanceof Error ? error.message : String(error)}\n`);
  if (process.env.CRASHPROBE_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  process.exitCode = 2;
}
