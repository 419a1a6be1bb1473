// `npm run example`: builds examples/shop's history (base, then the change) in a
// temporary git repository and reviews the change there with the CLI.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function buildExampleRepository(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crashprobe-shop-'));
  const git = (...args: string[]) =>
    execa('git', ['-c', 'user.name=crashprobe example', '-c', 'user.email=example@crashprobe.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir });
  await git('init', '--quiet', '--initial-branch=main');
  cpSync(path.join(root, 'examples/shop/base'), dir, { recursive: true });
  await git('add', '-A');
  await git('commit', '--quiet', '-m', 'Shop: refunds, billing, wallet');
  await git('checkout', '--quiet', '-b', 'receipts-and-fees');
  cpSync(path.join(root, 'examples/shop/change'), dir, { recursive: true });
  await git('add', '-A');
  await git('commit', '--quiet', '-m', 'Record refunds, email receipts, charge a transfer fee');
  return dir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = await buildExampleRepository();
  try {
    const extra = process.argv.slice(2);
    const result = await execa('node', [path.join(root, 'bin/crashprobe.js'), 'review', '--base', 'main', '--head', 'HEAD', ...extra], {
      cwd: dir,
      stdio: 'inherit',
      reject: false,
    });
    // The example's change is meant to fail the review (exit code 1); only a crash of the tool is an error here.
    if (result.exitCode !== 0 && result.exitCode !== 1) process.exitCode = result.exitCode ?? 2;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
