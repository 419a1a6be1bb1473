// What the runner says to the workflow: log lines, annotations, step outputs and
// the job summary. The only file that imports @actions/core besides run.ts.
import * as core from '@actions/core';
import type { Logger } from '../../core/ports.ts';

export interface AnnotationPlace {
  title?: string;
  file?: string;
  startLine?: number;
  endLine?: number;
}

export interface ActionIO {
  info(message: string): void;
  notice(message: string, where?: AnnotationPlace): void;
  warning(message: string, where?: AnnotationPlace): void;
  error(message: string, where?: AnnotationPlace): void;
  setOutput(name: string, value: string | number): void;
  /** Appends markdown to the job summary file. */
  appendSummary(markdown: string): Promise<void>;
}

export const actionsIO: ActionIO = {
  info: (message) => core.info(message),
  notice: (message, where) => core.notice(message, where),
  warning: (message, where) => core.warning(message, where),
  error: (message, where) => core.error(message, where),
  setOutput: (name, value) => core.setOutput(name, value),
  appendSummary: async (markdown) => {
    await core.summary.addRaw(markdown, true).write();
  },
};

export function ioLogger(io: ActionIO): Logger {
  return { info: (m) => io.info(m), warn: (m) => io.warning(m), error: (m) => io.error(m) };
}
