import { appendFileSync } from 'node:fs';
import type { Reporter, TestCase } from 'vitest/node';

/**
 * `.ci/run`'s list of the tests a reader of its last lines must see: each one that failed, and
 * each one that passed only on a retry. CI keeps the tail of its output, and a failure named
 * hundreds of lines above the count was lost with the rest.
 */
export default class CiReporter implements Reporter {
  private readonly file = process.env.CI_REPORT_LINES ?? 'test-results/ci-lines.txt';

  onTestCaseResult(test: TestCase): void {
    const result = test.result();
    const { state } = result;
    const retries = test.diagnostic()?.retryCount ?? 0;
    const where = `Node ${process.version} ${test.project.name} ${test.module.moduleId.replace(/^.*?\/test\//, 'test/')}: ${test.fullName}`;
    if (state === 'failed') {
      const why = (result.errors?.[0]?.message ?? '').split('\n', 1)[0]?.slice(0, 300);
      appendFileSync(this.file, `failed: ${where}\n  ${why}\n`);
    } else if (state === 'passed' && retries > 0) {
      appendFileSync(this.file, `passed on retry ${retries}: ${where}\n`);
    }
  }
}
