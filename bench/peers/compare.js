'use strict';
// Side-by-side summary of peer-benchmark JSON lines (any mix of boardgame.io, Colyseus and
// Tablestate runs): the median of each figure over the runs of every server, the ratio of each
// Tablestate variant to each peer, and the goals of issue 9 (met or not).
// Usage: node compare.js [--json] [--per-run] [--charts DIR] FILE.jsonl...
//   --json     one JSON line of medians per server|phase (the shape of the peers' summarize.js)
//   --per-run  also print every run (one row each), after the summary
//   --charts   hand the runs and medians to ./charts.js (the hook for PNG charts) to draw in DIR
// Medians: the lower median (as in summarize.js; the middle run of 3). Runs with an "error"
// field are counted, not summarized. Runs are numbered per server+phase in file order.
const fs = require('fs');
const path = require('path');

const argv = process.argv.slice(2);
const flag = (k) => argv.includes(k);
const optv = (k) => { const i = argv.indexOf(k); return i >= 0 ? argv[i + 1] : null; };
const JSON_MODE = flag('--json');
const CHART_DIR = optv('--charts');
const files = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--charts');
if (!files.length) { console.error('usage: node compare.js [--json] [--per-run] [--charts DIR] FILE.jsonl...'); process.exit(2); }
const rows = [];
for (const f of files) {
  for (const line of fs.readFileSync(f, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let r; try { r = JSON.parse(line); } catch (e) { continue; }
    if (!r.server || !r.phase) continue; // e.g. the runners' final medians line
    rows.push(r);
  }
}
const seen = {};
for (const r of rows) { const k = r.server + '|' + r.phase; seen[k] = (seen[k] || 0) + 1; r.run = seen[k]; }

const med = (xs) => { const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b); return v.length ? v[Math.floor((v.length - 1) / 2)] : null; };
const perCpuSecond = (rate, cpu) => (typeof rate === 'number' && cpu > 0 ? rate / (cpu / 100) : null);
// Figures: [phase, label, getter, better ('higher' | 'lower' | null = shown for information)]
const FIGURES = [
  ['A', 'moves/s', (r) => r.moves_per_s, 'higher'],
  ['A', 'latency p50 ms', (r) => r.latency && r.latency.p50_ms, 'lower'],
  ['A', 'latency p95 ms', (r) => r.latency && r.latency.p95_ms, 'lower'],
  ['A', 'latency p99 ms', (r) => r.latency && r.latency.p99_ms, 'lower'],
  ['A', 'latency max ms', (r) => r.latency && r.latency.max_ms, 'lower'],
  ['A', 'server CPU %', (r) => r.server_cpu_pct, null],
  ['A', 'moves per server CPU-s', (r) => perCpuSecond(r.moves_per_s, r.server_cpu_pct), 'higher'],
  ['A', 'server RSS end MB', (r) => r.server_rss_end_mb, 'lower'],
  ['A', 'client CPU %', (r) => r.client_cpu_pct, null],
  ['B', 'total moves/s', (r) => r.moves_per_s, 'higher'],
  ['B', 'latency p50 ms', (r) => r.latency && r.latency.p50_ms, 'lower'],
  ['B', 'latency p99 ms', (r) => r.latency && r.latency.p99_ms, 'lower'],
  ['B', 'latency max ms', (r) => r.latency && r.latency.max_ms, 'lower'],
  ['B', 'server CPU %', (r) => r.server_cpu_pct, null],
  ['B', 'moves per server CPU-s', (r) => perCpuSecond(r.moves_per_s, r.server_cpu_pct), 'higher'],
  ['B', 'server RSS start MB', (r) => r.server_rss_start_mb, 'lower'],
  ['B', 'server RSS end MB', (r) => r.server_rss_end_mb, 'lower'],
  ['B', 'server RSS max MB', (r) => r.server_rss_max_sampled_mb, 'lower'],
  ['B', 'per-match moves min', (r) => r.per_match_moves_min, null],
  ['B', 'per-match moves max', (r) => r.per_match_moves_max, null],
  ['B', 'client CPU %', (r) => r.client_cpu_pct, null],
  ['C', 'fan-out p50 ms', (r) => r.fanout && r.fanout.p50_ms, 'lower'],
  ['C', 'fan-out p99 ms', (r) => r.fanout && r.fanout.p99_ms, 'lower'],
  ['C', 'fan-out max ms', (r) => r.fanout && r.fanout.max_ms, 'lower'],
  ['C', 'mover p50 ms', (r) => r.mover_latency && r.mover_latency.p50_ms, 'lower'],
  ['C', 'server CPU %', (r) => r.server_cpu_pct, null],
  ['C', 'deliveries per server CPU-s', (r) => perCpuSecond(r.deliveries / r.wall_s, r.server_cpu_pct), 'higher'],
  ['C', 'server RSS end MB', (r) => r.server_rss_end_mb, 'lower'],
  ['C', 'client CPU %', (r) => r.client_cpu_pct, null],
];
// WORKLOAD.md validity checks (+ Tablestate's refused moves / subscription errors).
function valid(r) {
  if (r.error) return false;
  if ((r.move_errors || 0) > 0 || (r.subscription_errors || 0) > 0) return false;
  if (r.phase === 'A') return r.moves > 0 && r.final_list_len === r.moves && r.final_list_ok !== false;
  if (r.phase === 'C') return r.deliveries === r.expected_deliveries && r.incomplete_moves === 0;
  return r.moves_acked > 0;
}
const isTs = (s) => s.startsWith('tablestate');
const short = (s) => s.replace('boardgame.io@0.50.2', 'bgio').replace(/^colyseus@0\.16 \((\w+) patch\)$/, (_m, p) => (p === 'immediate' ? 'colyseus' : 'colyseus-' + p))
  .replace(/^tablestate \((\w+) moves\)$/, 'ts-$1');
const servers = [...new Set(rows.map((r) => r.server))].sort((a, b) => (isTs(b) - isTs(a)) || a.localeCompare(b));
const tsServers = servers.filter(isTs); const peers = servers.filter((s) => !isTs(s));

// medians per server|phase over the valid, error-free runs
const groups = {};
for (const r of rows) (groups[r.server + '|' + r.phase] ||= []).push(r);
const medianOf = (server, ph, get) => { const rs = (groups[server + '|' + ph] || []).filter((r) => !r.error); return rs.length ? med(rs.map(get)) : null; };

if (JSON_MODE) {
  const out = {};
  for (const [k, rs] of Object.entries(groups)) {
    const ok = rs.filter((r) => !r.error);
    if (!ok.length) continue;
    const L = (r) => r.latency || r.fanout || {};
    out[k] = {
      runs: ok.length, valid_runs: ok.filter(valid).length,
      moves_per_s: med(ok.map((r) => r.moves_per_s)), p50_ms: med(ok.map((r) => L(r).p50_ms)), p95_ms: med(ok.map((r) => L(r).p95_ms)),
      p99_ms: med(ok.map((r) => L(r).p99_ms)), max_ms: med(ok.map((r) => L(r).max_ms)), server_cpu_pct: med(ok.map((r) => r.server_cpu_pct)),
      server_rss_end_mb: med(ok.map((r) => r.server_rss_end_mb)), client_cpu_pct: med(ok.map((r) => r.client_cpu_pct)),
    };
  }
  console.log(JSON.stringify({ summary_median_over_runs: out, errors: rows.filter((r) => r.error).length }));
  process.exit(0);
}

const fmt = (x) => (x === null || x === undefined ? '-' : Math.abs(x) >= 100 ? String(Math.round(x)) : String(Math.round(x * 100) / 100));
function ratio(t, p, better) {
  if (t === null || p === null || !p) return '-';
  const q = t / p;
  const mark = better === 'higher' ? (q >= 1 ? ' ✓' : ' ✗') : better === 'lower' ? (q <= 1 ? ' ✓' : ' ✗') : '';
  return `${q >= 10 ? Math.round(q) : Math.round(q * 100) / 100}×${mark}`;
}
const pairs = []; for (const t of tsServers) for (const p of peers) pairs.push([t, p]);
console.log(`## Side by side (median over runs; ratio = Tablestate / peer, ✓ = Tablestate as good or better)\n`);
console.log(`Servers: ${servers.map((s) => `${short(s)} = ${s}`).join('; ')}\n`);
const head = ['phase', 'figure', 'better', ...servers.map(short), ...pairs.map(([t, p]) => `${short(t)}/${short(p)}`)];
console.log('| ' + head.join(' | ') + ' |');
console.log('|' + head.map(() => '---').join('|') + '|');
const runsRow = (ph) => ['', 'runs (valid/all)', '', ...servers.map((s) => { const rs = groups[s + '|' + ph] || []; return rs.length ? `${rs.filter(valid).length}/${rs.length}` : '-'; }), ...pairs.map(() => '')];
let lastPh = null;
for (const [ph, label, get, better] of FIGURES) {
  if (!servers.some((s) => groups[s + '|' + ph])) continue;
  if (ph !== lastPh) { console.log('| ' + [ph, ...runsRow(ph).slice(1)].join(' | ') + ' |'); lastPh = ph; }
  const vals = Object.fromEntries(servers.map((s) => [s, medianOf(s, ph, get)]));
  console.log('| ' + ['', label, better || 'info', ...servers.map((s) => fmt(vals[s])), ...pairs.map(([t, p]) => ratio(vals[t], vals[p], better))].join(' | ') + ' |');
}

// The goals of issue 9 against boardgame.io (the anchor), and the stretch goal against Colyseus.
const bgio = peers.find((s) => s.startsWith('boardgame.io'));
const coly = peers.find((s) => s.startsWith('colyseus') && s.includes('immediate'));
const G = (s, ph, get) => medianOf(s, ph, get);
const lat = (k) => (r) => r.latency && r.latency[k];
const fan = (k) => (r) => r.fanout && r.fanout[k];
const rssMax = (s) => { const v = ['A', 'B', 'C'].map((ph) => G(s, ph, (r) => r.server_rss_max_sampled_mb)).filter((x) => x !== null); return v.length ? Math.max(...v) : null; };
const goal = (name, t, p, better) => {
  if (t === null || p === null) return `- ${name}: - (not measured)`;
  const ok = better === 'higher' ? t >= p : t <= p;
  return `- ${name}: ${fmt(t)} vs ${fmt(p)} ${ok ? '✓ met' : '✗ not met'}`;
};
for (const t of tsServers) {
  if (bgio) {
    console.log(`\n### Goals of issue 9 for ${t} against ${bgio}`);
    console.log(goal('A p50 ms <=', G(t, 'A', lat('p50_ms')), G(bgio, 'A', lat('p50_ms')), 'lower'));
    console.log(goal('A p99 ms <=', G(t, 'A', lat('p99_ms')), G(bgio, 'A', lat('p99_ms')), 'lower'));
    console.log(goal('B total moves/s >=', G(t, 'B', (r) => r.moves_per_s), G(bgio, 'B', (r) => r.moves_per_s), 'higher'));
    console.log(goal('B p99 ms <=', G(t, 'B', lat('p99_ms')), G(bgio, 'B', lat('p99_ms')), 'lower'));
    console.log(goal('C fan-out p99 ms <=', G(t, 'C', fan('p99_ms')), G(bgio, 'C', fan('p99_ms')), 'lower'));
    console.log(goal('memory: largest RSS MB (any phase) <=', rssMax(t), rssMax(bgio), 'lower'));
  }
  if (coly) {
    console.log(`\n### Stretch goal for ${t}: per server CPU-second against ${coly}`);
    const cpuS = (ph, rate) => (r) => perCpuSecond(rate(r), r.server_cpu_pct);
    console.log(goal('A moves per server CPU-s >=', G(t, 'A', cpuS('A', (r) => r.moves_per_s)), G(coly, 'A', cpuS('A', (r) => r.moves_per_s)), 'higher'));
    console.log(goal('B moves per server CPU-s >=', G(t, 'B', cpuS('B', (r) => r.moves_per_s)), G(coly, 'B', cpuS('B', (r) => r.moves_per_s)), 'higher'));
    console.log(goal('C deliveries per server CPU-s >=', G(t, 'C', cpuS('C', (r) => r.deliveries / r.wall_s)), G(coly, 'C', cpuS('C', (r) => r.deliveries / r.wall_s)), 'higher'));
  }
}
const errs = rows.filter((r) => r.error);
if (errs.length) console.log(`\n${errs.length} failed run(s): ${errs.map((r) => `${short(r.server)} ${r.phase}: ${r.error}`).join('; ')}`);
const invalid = rows.filter((r) => !r.error && !valid(r));
if (invalid.length) console.log(`\n${invalid.length} run(s) failing a validity check (kept in the medians): ${invalid.map((r) => `${short(r.server)} ${r.phase} run ${r.run}`).join('; ')}`);
const noisy = rows.filter((r) => typeof r.foreign_cpu_pct === 'number' && r.foreign_cpu_pct > 25);
if (noisy.length) console.log(`\nNoisy (foreign CPU > 25 % of a core): ${noisy.map((r) => `${short(r.server)} ${r.phase} run ${r.run} (${r.foreign_cpu_pct})`).join('; ')}`);

if (flag('--per-run')) {
  console.log('\n## Every run\n');
  console.log('| server | phase | run | valid | moves/s | p50 ms | p99 ms | max ms | server CPU % | RSS start→end (max) MB | client CPU % | foreign CPU % | pre-run busy % |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const l = r.latency || r.fanout || {};
    console.log(`| ${short(r.server)} | ${r.phase} | ${r.run} | ${valid(r) ? 'yes' : 'NO'} | ${fmt(r.moves_per_s)} | ${fmt(l.p50_ms)} | ${fmt(l.p99_ms)} | ${fmt(l.max_ms)} | ${fmt(r.server_cpu_pct)} | ${fmt(r.server_rss_start_mb)}→${fmt(r.server_rss_end_mb)} (${fmt(r.server_rss_max_sampled_mb)}) | ${fmt(r.client_cpu_pct)} | ${fmt(r.foreign_cpu_pct)} | ${fmt(r.pre_run_busy_pct)} |${r.error ? ' ERROR ' + r.error : ''}`);
  }
}

// Hook for PNG charts (latency distributions, scaling curves side by side with the peers):
// charts.js gets every run and the medians, and draws into CHART_DIR.
if (CHART_DIR) {
  const medians = {};
  for (const s of servers) for (const [ph, label, get] of FIGURES) ((medians[s] ||= {})[ph] ||= {})[label] = medianOf(s, ph, get);
  require(path.join(__dirname, 'charts.js')).draw({ rows, medians, servers, dir: CHART_DIR });
}
