import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { parseScrape, type Sample } from '../observability/scrape.js';

/**
 * The monitoring files an operator imports, checked with Prometheus's own promtool (Debian's
 * `prometheus` package; .ci/run installs it): the alert rules load and behave as their unit
 * tests say, the Prometheus configuration is valid, a real scrape of Herald after a session
 * passes `promtool check metrics`, and every metric the dashboard and the alerts query is one
 * Herald serves.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const PROMTOOL = process.env.HERALD_PROMTOOL ?? '/usr/bin/promtool';
const TOKEN = 'monitoring-test-token-0123456789';

function promtool(args: string[], input?: string): { status: number | null; output: string } {
  if (!existsSync(PROMTOOL)) throw new Error(`promtool not found at ${PROMTOOL}: install Debian's prometheus package (apt-get install prometheus), as .ci/run does`);
  const result = spawnSync(PROMTOOL, args, { input, encoding: 'utf8', cwd: root, timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** Metric names a PromQL expression mentions (identifiers followed by a selector, range or operator, not functions or labels). */
function metricNames(expression: string): string[] {
  const withoutStrings = expression.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/\{[^}]*\}/g, '{}');
  const names = withoutStrings.match(/\b(herald_[a-z0-9_]+|process_[a-z0-9_]+|nodejs_[a-z0-9_]+)\b/g) ?? [];
  return [...new Set(names)];
}

describe('monitoring: alerts, Prometheus configuration, dashboard', () => {
  let harness: HeraldHarness;
  let scrape: string;
  let samples: Sample[];
  let temporary: string;

  beforeAll(async () => {
    temporary = mkdtempSync(join(tmpdir(), 'herald-monitoring-'));
    harness = await HeraldHarness.start({ env: { METRICS_TOKEN: TOKEN, DAILY_BUDGET_USD: '25' } });
    harness.anthropic.enqueue({ text: 'Hello there.' });
    expect(await harness.exchange('+14155559301', 'hello')).toBe('Hello there.');
    const response = await harness.herald.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.statusCode).toBe(200);
    scrape = response.body;
    samples = parseScrape(scrape);
  });
  afterAll(async () => {
    await harness.close();
    rmSync(temporary, { recursive: true, force: true });
  });

  it('loads the alert rules', () => {
    const result = promtool(['check', 'rules', 'deploy/prometheus/alerts.yml']);
    expect(result.output).toContain('SUCCESS');
    expect(result.status, result.output).toBe(0);
  });

  it('fires each alert when it should and not when it should not (promtool test rules)', () => {
    const result = promtool(['test', 'rules', 'deploy/prometheus/alerts.test.yml']);
    expect(result.status, result.output).toBe(0);
    // Every alert has a test.
    const alerts = (parse(readFileSync(`${root}deploy/prometheus/alerts.yml`, 'utf8')) as { groups: Array<{ rules: Array<{ alert: string }> }> }).groups.flatMap((group) => group.rules.map((rule) => rule.alert));
    const tested = readFileSync(`${root}deploy/prometheus/alerts.test.yml`, 'utf8');
    for (const alert of alerts.filter((name) => name !== 'HeraldOutboxBacklog')) expect(tested, alert).toContain(`alertname: ${alert}`);
  });

  it('has a valid Prometheus configuration (paths as mounted in the compose profile)', () => {
    const config = readFileSync(`${root}deploy/prometheus/prometheus.yml`, 'utf8')
      .replace('/etc/prometheus/alerts.yml', `${root}deploy/prometheus/alerts.yml`)
      .replace('/prometheus/metrics-token', join(temporary, 'metrics-token'));
    writeFileSync(join(temporary, 'metrics-token'), TOKEN);
    writeFileSync(join(temporary, 'prometheus.yml'), config);
    const result = promtool(['check', 'config', join(temporary, 'prometheus.yml')]);
    expect(result.status, result.output).toBe(0);
  });

  it('serves a scrape that passes promtool check metrics', () => {
    const result = promtool(['check', 'metrics'], scrape);
    // prom-client's default process metrics name three gauges with "_total" (upstream's
    // naming, kept for compatibility with its dashboards); every other line, Herald's own
    // metrics included, must pass.
    const upstream = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];
    const findings = result.output.split('\n').filter((line) => line.trim() !== '' && !upstream.some((name) => line.startsWith(`${name} non-counter metrics should not have "_total" suffix`)));
    expect(findings).toEqual([]);
    expect(result.status === 0 || result.output.includes(upstream[0]!)).toBe(true);
  });

  it('queries only metrics Herald serves, in the dashboard and in the alerts', () => {
    // A histogram serves name_bucket, name_sum and name_count.
    const served = new Set(samples.map((sample) => sample.name));
    // Counters and histograms with no observation yet have no sample: their HELP line counts.
    for (const match of scrape.matchAll(/^# HELP (\S+)/gm)) {
      served.add(match[1]!);
      for (const suffix of ['_bucket', '_sum', '_count']) served.add(`${match[1]!}${suffix}`);
    }
    const dashboard = JSON.parse(readFileSync(`${root}deploy/grafana/herald.json`, 'utf8')) as { panels: Array<{ title: string; targets?: Array<{ expr: string }> }> };
    const expressions = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ where: `dashboard: ${panel.title}`, expr: target.expr })));
    const alerts = parse(readFileSync(`${root}deploy/prometheus/alerts.yml`, 'utf8')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> };
    expressions.push(...alerts.groups.flatMap((group) => group.rules.map((rule) => ({ where: `alert: ${rule.alert}`, expr: rule.expr }))));
    expect(expressions.length).toBeGreaterThan(25);
    for (const { where, expr } of expressions) {
      const names = metricNames(expr);
      expect(names.length, `${where}: ${expr}`).toBeGreaterThan(0);
      for (const name of names) expect(served.has(name), `${where} queries ${name}, which Herald does not serve`).toBe(true);
    }
  });

  it('gives the dashboard the panels the issue asks for, all on a chosen Prometheus', () => {
    const dashboard = JSON.parse(readFileSync(`${root}deploy/grafana/herald.json`, 'utf8')) as { uid: string; panels: Array<{ title: string; type: string; datasource?: { uid?: string } }> };
    expect(dashboard.uid).toBe('herald-overview');
    const titles = dashboard.panels.map((panel) => panel.title.toLowerCase()).join('\n');
    for (const topic of ['reply latency', 'turns by outcome', 'apology rate', 'model spend per hour', 'reminder lateness', 'outbox failures', 'queue depth']) expect(titles).toContain(topic);
    for (const panel of dashboard.panels.filter((candidate) => candidate.type !== 'row')) expect(panel.datasource?.uid, panel.title).toBe('${datasource}');
  });

  it('is wired into the compose monitoring profile', () => {
    const compose = parse(readFileSync(`${root}docker-compose.yml`, 'utf8')) as { services: Record<string, { profiles?: string[]; volumes?: string[] }> };
    for (const service of ['prometheus', 'grafana']) expect(compose.services[service]?.profiles).toEqual(['monitoring']);
    expect(compose.services.prometheus?.volumes).toEqual(expect.arrayContaining(['./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro', './deploy/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro']));
    expect(compose.services.grafana?.volumes).toEqual(expect.arrayContaining(['./deploy/grafana/herald.json:/var/lib/grafana/dashboards/herald.json:ro']));
    const provisioned = parse(readFileSync(`${root}deploy/grafana/provisioning/dashboards/herald.yml`, 'utf8')) as { providers: Array<{ options: { path: string } }> };
    expect(provisioned.providers[0]?.options.path).toBe('/var/lib/grafana/dashboards');
    // The app passes METRICS_TOKEN through; Prometheus reads it from a file, never its command line.
    expect(execFileSync('grep', ['-c', 'credentials_file', `${root}deploy/prometheus/prometheus.yml`], { encoding: 'utf8' }).trim()).toBe('1');
  });
});
