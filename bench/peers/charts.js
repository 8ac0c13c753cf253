'use strict';
// The chart hook, called by `node compare.js --charts DIR FILE.jsonl...` (run_all.sh with CHARTS=1).
// Writes DIR/chart_data.json (every run, the medians of compare.js, and the raw latency samples
// of the runs made with SAMPLES_DIR set), then has bench/charts.py (Python + matplotlib; the
// project's venv, or $PYTHON) draw the PNGs into DIR: the latency distributions of phases A, B
// and C, Tablestate beside the peers. The scaling curves come from bench/scaling.py, drawn by
// the same script (bench/run_everything.sh).
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

function draw({ rows, medians, servers, dir }) {
  fs.mkdirSync(dir, { recursive: true });
  const samples = {};
  const sdir = process.env.SAMPLES_DIR;
  if (sdir && fs.existsSync(sdir)) {
    for (const f of fs.readdirSync(sdir).filter((n) => n.endsWith('.json'))) samples[f] = JSON.parse(fs.readFileSync(path.join(sdir, f), 'utf8'));
  }
  const out = path.join(dir, 'chart_data.json');
  fs.writeFileSync(out, JSON.stringify({ servers, medians, rows, samples }));
  console.error(`charts: chart data written to ${out}`);
  const run = sdir ? path.dirname(sdir) : path.dirname(dir);
  const py = process.env.PYTHON || 'python';
  const res = spawnSync(py, [path.join(__dirname, '..', 'charts.py'), '--peers-run', run, '--out', dir,
    '--scaling', path.join(dir, 'no-scaling.jsonl')], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 120000 });
  if (res.status !== 0) console.error(`charts: ${py} bench/charts.py failed (status ${res.status}); is matplotlib installed?`);
}
module.exports = { draw };
