'use strict';
// The hook for PNG charts, called by `node compare.js --charts DIR FILE.jsonl...`.
// Not drawn yet: for now it writes DIR/chart_data.json, everything a chart needs:
//   rows     every run (JSON lines as the runners print them; percentiles per run)
//   medians  server -> phase -> figure -> median (the figures of compare.js)
//   samples  the raw latency samples of Tablestate runs made with SAMPLES_DIR set
//            (run_tablestate.sh / run_all.sh), keyed by file name
// To draw PNGs, replace the body of draw() (or call a plotting script on chart_data.json,
// e.g. Python + matplotlib): latency distributions per phase side by side with the peers,
// and, later, scaling curves (tables, subscribers) from their own result files.
const fs = require('fs');
const path = require('path');

function draw({ rows, medians, servers, dir }) {
  fs.mkdirSync(dir, { recursive: true });
  const samples = {};
  const sdir = process.env.SAMPLES_DIR;
  if (sdir && fs.existsSync(sdir)) {
    for (const f of fs.readdirSync(sdir).filter((n) => n.endsWith('.json'))) samples[f] = JSON.parse(fs.readFileSync(path.join(sdir, f), 'utf8'));
  }
  const out = path.join(dir, 'chart_data.json');
  fs.writeFileSync(out, JSON.stringify({ servers, medians, rows, samples }));
  console.error(`charts: PNG drawing is not implemented yet; chart data written to ${out}`);
}
module.exports = { draw };
