import { describe, expect, inject, it } from 'vitest';
import { REPORT_CSV } from '../fixtures/site.js';

describe('the fixture site', () => {
  it('serves the report as an attachment, so a browser downloads it instead of showing it', async () => {
    const response = await fetch(`${inject('siteUrl')}/files/report.csv`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="report.csv"');
    expect(await response.text()).toBe(REPORT_CSV);
  });
});
