'use strict';
// CPU % and RSS summed over a multi-process server (every uvicorn worker + redis-server),
// with the same fields and definitions as ProcSampler in stats.js (WORKLOAD.md):
//   server_cpu_pct  sum over the processes of (utime+stime) delta / wall time, 100 = one core
//   server_rss_*    sum of VmRSS at start / end, and the largest sum sampled every 250 ms
//   server_vmhwm_mb sum of each process's VmHWM (an upper bound of the peak of the sum)
//   client_cpu_pct, foreign_cpu_pct, machine_*: as in stats.js
// The processes are the given root pids and all their descendants, found when sampling starts.
const fs = require('fs');
const os = require('os');

const CLK_TCK = 100; // getconf CLK_TCK on this machine (as in stats.js)

function statFields(pid) {
  const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return { comm: st.slice(st.indexOf('(') + 1, st.lastIndexOf(')')), f: st.slice(st.lastIndexOf(')') + 2).split(' ') };
}
// f[1] = ppid (field 4), f[11] = utime (field 14), f[12] = stime (field 15)
function cpuTicks(pid) { const { f } = statFields(pid); return Number(f[11]) + Number(f[12]); }
function mem(pid) {
  const st = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const g = (k) => { const m = st.match(new RegExp('^' + k + ':\\s+(\\d+) kB', 'm')); return m ? Number(m[1]) : 0; };
  return { rss_kb: g('VmRSS'), hwm_kb: g('VmHWM') };
}
function machineCpu() {
  const l = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = l;
  return { busy: user + nice + system + irq + softirq, idle: idle + iowait, softirq: softirq + irq, steal: steal || 0 };
}
// The root pids and every descendant of theirs that is alive now.
function withDescendants(roots) {
  const children = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(statFields(name).f[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch (e) { /* gone meanwhile */ }
  }
  const out = []; const todo = [...roots];
  while (todo.length) {
    const pid = todo.shift();
    if (out.includes(pid) || !fs.existsSync(`/proc/${pid}`)) continue;
    out.push(pid);
    todo.push(...(children.get(pid) || []));
  }
  return out;
}
const mb = (kb) => Math.round(kb / 102.4) / 10;
const r1 = (x) => Math.round(x * 10) / 10;

class MultiProcSampler {
  constructor(rootPids) { this.roots = (rootPids || []).filter(Boolean); this.maxRss = 0; this.timer = null; }
  rssSum() { let s = 0; for (const pid of this.pids) { try { s += mem(pid).rss_kb; } catch (e) {} } return s; }
  start() {
    if (!this.roots.length) return;
    this.pids = withDescendants(this.roots);
    this.comm = new Map(this.pids.map((p) => [p, statFields(p).comm]));
    this.t0 = process.hrtime.bigint();
    this.c0 = new Map(this.pids.map((p) => [p, cpuTicks(p)]));
    this.m0 = machineCpu(); this.cu0 = process.cpuUsage();
    this.startRss = this.rssSum();
    this.timer = setInterval(() => { const s = this.rssSum(); if (s > this.maxRss) this.maxRss = s; }, 250);
  }
  stop() {
    if (!this.roots.length) return null;
    clearInterval(this.timer);
    const c1 = new Map(); for (const p of this.pids) { try { c1.set(p, cpuTicks(p)); } catch (e) { c1.set(p, this.c0.get(p)); } }
    const t1 = process.hrtime.bigint();
    const wall = Number(t1 - this.t0) / 1e9;
    const mems = new Map(); for (const p of this.pids) { try { mems.set(p, mem(p)); } catch (e) { mems.set(p, { rss_kb: 0, hwm_kb: 0 }); } }
    const m1 = machineCpu();
    const d = (k) => m1[k] - this.m0[k];
    const tot = d('busy') + d('idle') + d('steal');
    const ncpu = os.cpus().length;
    const cu = process.cpuUsage(this.cu0);
    const procs = this.pids.map((p) => ({
      pid: p, comm: this.comm.get(p),
      cpu_pct: r1(((c1.get(p) - this.c0.get(p)) / CLK_TCK) / wall * 100),
      rss_end_mb: mb(mems.get(p).rss_kb), vmhwm_mb: mb(mems.get(p).hwm_kb),
    }));
    let ticks = 0; for (const p of this.pids) ticks += c1.get(p) - this.c0.get(p);
    let rssEnd = 0; let hwm = 0; for (const m of mems.values()) { rssEnd += m.rss_kb; hwm += m.hwm_kb; }
    const serverCpu = (ticks / CLK_TCK) / wall * 100;
    const clientCpu = ((cu.user + cu.system) / 1e6) / wall * 100;
    const busyOneCore = d('busy') / tot * 100 * ncpu;
    return {
      client_cpu_pct: r1(clientCpu),
      foreign_cpu_pct: r1(busyOneCore - serverCpu - clientCpu),
      machine_busy_pct_of_all_cores: Math.round(d('busy') / tot * 1000) / 10,
      machine_irq_softirq_pct: Math.round(d('softirq') / tot * 1000) / 10,
      machine_steal_pct: Math.round(d('steal') / tot * 1000) / 10,
      server_pid: this.roots[0],
      server_pids: this.pids,
      server_cpu_pct: r1(serverCpu),
      server_rss_start_mb: mb(this.startRss),
      server_rss_end_mb: mb(rssEnd),
      server_rss_max_sampled_mb: mb(Math.max(this.maxRss, rssEnd)),
      server_vmhwm_mb: mb(hwm),
      server_procs: procs,
      window_s: Math.round(wall * 100) / 100,
    };
  }
}
module.exports = { MultiProcSampler, withDescendants };
