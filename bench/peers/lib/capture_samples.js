'use strict';
// Keeps the raw latency samples of the peers' loadgens (boardgame.io, Colyseus) for the latency
// distribution charts, without changing the peers' benchmark: preloaded into every node process
// of a peer runner with NODE_OPTIONS="--require <this file>" and PEER_SAMPLES_DIR set (run_all.sh
// does it when CHARTS=1). It acts only in a process whose script is a `loadgen.js` beside a
// `../lib/stats.js`: it wraps that module's summarize(samples) to remember each array it is
// handed, and writes them when the process exits, as
//   $PEER_SAMPLES_DIR/<server>_<phase>_<unix time>_<pid>.json = {server, phase, latency | fanout, mover_latency}
// in the format of Tablestate's --samples-out. Call order per phase in the peers' loadgens:
// A and B summarize the move latencies once; C summarizes the fan-out, then the mover's acks.
const fs = require('fs');
const path = require('path');

const script = process.argv[1] || '';
const outDir = process.env.PEER_SAMPLES_DIR;
const statsPath = path.join(path.dirname(script), '..', 'lib', 'stats.js');
if (outDir && path.basename(script) === 'loadgen.js' && fs.existsSync(statsPath)) {
  const phase = process.argv[2];
  const server = path.basename(path.dirname(script)); // bgio | colyseus
  const S = require(statsPath);
  const original = S.summarize;
  const seen = [];
  S.summarize = (samples) => {
    seen.push(Array.from(samples));
    return original(samples);
  };
  process.on('exit', (code) => {
    if (code !== 0 || !seen.length) return;
    const names = phase === 'C' ? ['fanout', 'mover_latency'] : ['latency'];
    const out = { server, phase };
    names.forEach((name, i) => {
      if (seen[i]) out[name] = seen[i].map((x) => Math.round(x * 1000) / 1000);
    });
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `${server}_${phase}_${Math.floor(Date.now() / 1000)}_${process.pid}.json`);
    fs.writeFileSync(file, JSON.stringify(out));
  });
}
