import { runCampaign, type CampaignOptions } from '../../../src/adapters/harness/campaign.ts';
import { prepareHarness } from '../../../src/adapters/harness/prepare.ts';
import type { CampaignResult } from '../../../src/core/crash/protocol.ts';

let prepared: Awaited<ReturnType<typeof prepareHarness>> | undefined;

export async function harnessOptions(): Promise<CampaignOptions> {
  prepared ??= await prepareHarness({ python: 'python3', sandbox: 'auto', searchPath: ['/usr/bin', '/bin', '/usr/local/bin'] });
  return { ...prepared.options, isolation: 'fork', concurrency: 2 };
}

export async function crash(paths: string[], overrides: Partial<CampaignOptions> = {}): Promise<CampaignResult> {
  return runCampaign(paths, { ...(await harnessOptions()), ...overrides });
}
