// A small RuleTester in the manner of ESLint's: a rule, a table of valid
// snippets (no finding) and invalid ones (each naming the message ids it
// expects, and the lines). Snippets are whole Python modules; every function
// in them is analysed as analyze.ts would: effects, transaction style, rules.
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../../src/core/python/model.ts';
import { parseModule } from '../../../../src/core/python/parse.ts';
import { listFunctions } from '../../../../src/core/python/functions.ts';
import { findEffects } from '../../../../src/core/python/effects.ts';
import { detectTxStyle } from '../../../../src/core/python/tx-style.ts';
import { runRules, type Rule } from '../../../../src/core/python/rules/index.ts';

export interface ValidCase {
  name: string;
  code: string;
}

export interface ExpectedError {
  messageId: string;
  line: number;
}

export interface InvalidCase {
  name: string;
  code: string;
  errors: ExpectedError[];
}

export interface RuleTable {
  valid: ValidCase[];
  invalid: InvalidCase[];
}

/** Removes the common indentation and the first empty line, so snippets can sit indented in a test. */
export function dedent(code: string): string {
  const lines = code.replace(/^\n/, '').split('\n');
  const indents = lines.filter((line) => line.trim().length > 0).map((line) => /^ */.exec(line)![0].length);
  const common = Math.min(...indents);
  return lines.map((line) => line.slice(common)).join('\n');
}

/** Every finding of `rules` over every function of the snippet, in source order. */
export function lint(code: string, rules?: readonly Rule[], path = 'snippet.py'): Finding[] {
  const module = parseModule(path, dedent(code));
  return listFunctions(module).flatMap((fn) =>
    runRules({ module, fn, effects: findEffects(fn, module), txStyle: detectTxStyle(fn, module) }, rules ? { rules } : {}),
  );
}

export function testRule(rule: Rule, table: RuleTable): void {
  describe(rule.meta.id, () => {
    it('names each expected message id in its meta, and has an invalid case for each message', () => {
      const messageIds = Object.keys(rule.meta.messages);
      const expected = new Set(table.invalid.flatMap((testCase) => testCase.errors.map((error) => error.messageId)));
      expect([...expected].filter((id) => !messageIds.includes(id))).toEqual([]);
      expect(messageIds.filter((id) => !expected.has(id))).toEqual([]);
    });

    describe('valid', () => {
      for (const testCase of table.valid) {
        it(testCase.name, () => {
          expect(lint(testCase.code, [rule]).map(summary)).toEqual([]);
        });
      }
    });

    describe('invalid', () => {
      for (const testCase of table.invalid) {
        it(testCase.name, () => {
          const findings = lint(testCase.code, [rule]);
          expect(findings.map((finding) => ({ messageId: finding.messageId, line: finding.range.startLine }))).toEqual(testCase.errors);
          for (const finding of findings) {
            expect(finding.message).not.toMatch(/\{\{|\n/);
            expect(finding.ruleId).toBe(rule.meta.id);
          }
        });
      }
    });
  });
}

function summary(finding: Finding): string {
  return `${finding.range.startLine}: ${finding.messageId}: ${finding.message}`;
}
