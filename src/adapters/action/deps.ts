// The real ports of an Action run; tests swap any of them for an object literal.
import { toSarif } from '../../core/render/sarif.ts';
import { reviewPullRequest } from '../../core/review/review.ts';
import { connectGitHub } from './github.ts';
import { chooseHarness } from '../harness/choose.ts';
import { actionsIO } from './io.ts';
import type { ActionDeps } from './runner.ts';

export function actionDeps(harnessDir?: string): ActionDeps {
  return {
    io: actionsIO,
    connect: connectGitHub,
    review: reviewPullRequest,
    chooseHarness,
    sarif: (review) => toSarif(review),
    harnessDir,
  };
}
