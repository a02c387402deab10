import { describe, expect, it } from 'vitest';
import { metricsText, waitForTurn } from '../../src/ops/metrics.js';
import { BindAudit } from '../../src/secrets/audit.js';

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics counted where the events happen', () => {
  it('counts secret binds allowed and refused from the audit, with no name or origin in a label', async () => {
    const audit = new BindAudit({ info: () => undefined, warn: () => undefined });
    const before = await metricsText(undefined);
    const bind = {
      workspace: 'w',
      flow: null,
      step: null,
      secret: 'cloud',
      key: 'password',
      origin: 'https://a.example',
    };
    audit.record({ ...bind, allowed: true });
    audit.record({ ...bind, allowed: false, reason: 'origin' });
    audit.record({ ...bind, allowed: false, reason: 'origin' });
    const after = await metricsText(undefined);
    const delta = (outcome: string) =>
      (sample(after, `selenium_flow_secret_binds_total{outcome="${outcome}"}`) ?? 0) -
      (sample(before, `selenium_flow_secret_binds_total{outcome="${outcome}"}`) ?? 0);
    expect([delta('allowed'), delta('refused')]).toEqual([1, 2]);
    expect(after).not.toContain('cloud');
    expect(after).not.toContain('a.example');
  });

  it('counts a call waiting for its turn once, however often its wait is ended', async () => {
    const waited = waitForTurn();
    expect(sample(await metricsText(undefined), 'selenium_flow_turns_waiting')).toBe(1);
    waited();
    waited();
    expect(sample(await metricsText(undefined), 'selenium_flow_turns_waiting')).toBe(0);
  });

  it("leaves the Grid's slots out while the Grid does not answer", async () => {
    expect(await metricsText({ free: 3, used: 1 })).toContain('selenium_flow_grid_slots{state="free"} 3');
    expect(await metricsText(undefined)).not.toContain('selenium_flow_grid_slots{');
  });
});
