'use strict';
// Closed-loop load client for the boardgame.io Tic-Tac-Toe server (server.js).
// One process, N "tables". Each table plays matches one after another; per move:
// emit 'update' [makeMove action, stateID, matchID, playerID] on the mover's socket, wait
// for the server's broadcast ('update' [matchID, state] or 'patch' [matchID, prev, stateID,
// patch]) on that socket carrying stateID+1, then immediately send the next move.
// Matches (Lobby create + join both seats + socket connect + 'sync') are prepared before
// the measured window; only moves confirmed inside the window are counted.
const fs = require('fs');
const { io } = require('socket.io-client');
const { applyPatch } = require('rfc6902');

// ---------- options ----------
const opts = {
  url: 'http://127.0.0.1:8100', clients: 50, seconds: 10, warmup: 3, 'server-pid': 0,
  game: 'tic-tac-toe', 'matches-per-client': 0, 'move-timeout-ms': 10000, 'create-concurrency': 8,
};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const m = /^--([^=]+)(?:=(.*))?$/.exec(argv[i]);
  if (!m || !(m[1] in opts)) { console.error(`unknown argument: ${argv[i]}`); process.exit(2); }
  const v = m[2] !== undefined ? m[2] : argv[++i];
  if (v === undefined) { console.error(`missing value for --${m[1]}`); process.exit(2); }
  opts[m[1]] = typeof opts[m[1]] === 'number' ? Number(v) : v;
}
const URL_BASE = opts.url.replace(/\/$/, '');
const GAME = opts.game;
const NCLI = opts.clients;

// ---------- stats ----------
const now = () => performance.now();
let measuring = false, stopping = false;
let winStart = 0, winEnd = 0;
let movesWin = 0, movesTotal = 0, matchesFinished = 0, movesInFinished = 0;
const latWin = [];
const errors = { total: 0, inWindow: 0, kinds: {} };
let createdInWindow = 0;
let gate = null; // a Promise while tables are paused (stock top-up between warmup and window)
const latWarm = [];
function err(kind, detail) {
  errors.total++;
  if (measuring) errors.inWindow++;
  errors.kinds[kind] = (errors.kinds[kind] || 0) + 1;
  if (errors.total <= 5) console.error(`error[${kind}]`, detail === undefined ? '' : String(detail).slice(0, 300));
}

// ---------- CPU from /proc ----------
const CLK_TCK = 100; // getconf CLK_TCK on Linux x86_64
function procTicks(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' '); // f[0] = field 3 (state)
    return Number(f[11]) + Number(f[12]); // utime (14) + stime (15)
  } catch (e) { return null; }
}
function pgSnapshot() { // pid -> {ticks, ours}
  const snap = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const comm = fs.readFileSync(`/proc/${d}/comm`, 'utf8').trim();
      if (!comm.startsWith('postgres')) continue;
      const t = procTicks(d);
      if (t === null) continue;
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8');
      snap.set(d, { ticks: t, ours: / bgio_bench /.test(cmd) });
    } catch (e) { /* process exited */ }
  }
  return snap;
}
function pgDeltaMs(before, after) {
  let all = 0, ours = 0;
  for (const [pid, a] of after) {
    const b = before.get(pid);
    const d = a.ticks - (b ? b.ticks : 0); // process started inside the window: all of it
    all += d; if (a.ours) ours += d;
  }
  return { all: all * 1000 / CLK_TCK, ours: ours * 1000 / CLK_TCK };
}

// ---------- HTTP (Lobby API) ----------
async function post(path, body) {
  const r = await fetch(URL_BASE + path, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`POST ${path} -> ${r.status} ${text}`);
  return JSON.parse(text);
}

// ---------- one match: create, join both seats, connect + sync both players ----------
function openPlayerSocket(match, p) {
  return new Promise((resolve, reject) => {
    // Same namespace URL as boardgame.io's SocketIO transport (server + gameName). Its
    // second io() call for the same namespace also gets its own connection (forceNew here).
    const sock = io(`${URL_BASE}/${GAME}`, { forceNew: true, reconnection: false });
    const pl = { sock, playerID: String(p), credentials: match.creds[p], synced: false, lastSeen: -1 };
    const timer = setTimeout(() => reject(new Error('sync timeout')), opts['move-timeout-ms']);
    sock.on('connect', () => {
      sock.emit('sync', match.matchID, pl.playerID, pl.credentials, 2);
    });
    sock.on('sync', (matchID, syncInfo) => {
      if (matchID !== match.matchID || pl.synced) return;
      pl.synced = true; clearTimeout(timer);
      match.state = syncInfo.state;
      pl.lastSeen = Math.max(pl.lastSeen, syncInfo.state._stateID);
      resolve(pl);
    });
    sock.on('update', (matchID, state) => onServerState(match, pl, matchID, state, state && state._stateID));
    sock.on('patch', (matchID, prevStateID, stateID, patch) => {
      if (matchID !== match.matchID) return;
      let state;
      try {
        state = JSON.parse(JSON.stringify(match.state));
        const res = applyPatch(state, patch);
        if (res.some((e) => e)) throw new Error('patch failed');
      } catch (e) { err('patch', e.message); return; }
      onServerState(match, pl, matchID, state, stateID);
    });
    sock.on('connect_error', (e) => { err('connect_error', e && e.message); reject(e); });
    sock.on('error', (e) => err('socket_error', e && e.message));
    sock.on('disconnect', (reason) => { if (!match.closing) err('disconnect', reason); });
  });
}

const allMatches = [];
function closeMatch(match) { // its sockets closed once; the disconnects are then not errors
  if (match.closing) return;
  match.closing = true;
  for (const p of match.players) if (p) p.sock.close();
}
async function prepareMatch() {
  const { matchID } = await post(`/games/${GAME}/create`, { numPlayers: 2 });
  const match = { matchID, creds: [], players: [], state: null, pending: null, closing: false };
  allMatches.push(match);
  for (const p of [0, 1]) { // sequential: boardgame.io's join is read-modify-write of metadata
    const j = await post(`/games/${GAME}/${matchID}/join`, { playerID: String(p), playerName: `p${p}` });
    match.creds[p] = j.playerCredentials;
  }
  for (const p of [0, 1]) match.players[p] = await openPlayerSocket(match, p);
  return match;
}

// ---------- moves ----------
function onServerState(match, pl, matchID, state, stateID) {
  if (matchID !== match.matchID) return;
  // Each socket gets every broadcast of its match, in order. lastSeen tells a late copy of
  // the previous move's broadcast (lastSeen < stateID) from a re-broadcast of an unchanged
  // state after a rejected move (lastSeen already == stateID).
  const prevSeen = pl.lastSeen;
  if (stateID > pl.lastSeen) pl.lastSeen = stateID;
  const pend = match.pending;
  if (!pend || pend.player !== pl) return; // the other seat's copy
  if (stateID === pend.stateID + 1) {
    clearTimeout(pend.timer); match.pending = null;
    const t = now();
    match.state = state;
    movesTotal++;
    if (measuring && t >= winStart) { movesWin++; latWin.push(t - pend.t0); } else if (!measuring) latWarm.push(t - pend.t0);
    pend.resolve(true);
  } else if (stateID === pend.stateID && prevSeen >= pend.stateID) {
    // Server applied nothing (e.g. INVALID_MOVE): state re-broadcast with the same stateID.
    clearTimeout(pend.timer); match.pending = null;
    err('rejected_move', `match ${matchID} stateID ${stateID}`);
    pend.resolve(false);
  }
}

function sendMove(match) {
  const st = match.state;
  const cur = st.ctx.currentPlayer;
  const pl = match.players[Number(cur)];
  const empty = [];
  st.G.cells.forEach((c, i) => { if (c === null) empty.push(i); });
  const cell = empty[Math.floor(Math.random() * empty.length)];
  const action = { type: 'MAKE_MOVE', payload: { type: 'clickCell', args: [cell], playerID: cur, credentials: pl.credentials } };
  return new Promise((resolve) => {
    const pend = { player: pl, stateID: st._stateID, t0: now(), resolve };
    // Silent server-side rejections (bad credentials, stale stateID, inactive player)
    // send nothing back: they show up here as timeouts.
    pend.timer = setTimeout(() => {
      if (match.pending === pend) { match.pending = null; err('move_timeout', `match ${match.matchID}`); resolve(false); }
    }, opts['move-timeout-ms']);
    match.pending = pend;
    pl.sock.emit('update', action, st._stateID, match.matchID, cur);
  });
}

async function playMatch(match) {
  let n = 0;
  while (!stopping && match.state.ctx.gameover === undefined) {
    if (gate) { await gate; continue; }
    const ok = await sendMove(match);
    if (!ok) { match.done = true; return; } // abandon this match after an error; the table takes the next one
    n++;
  }
  match.done = true;
  if (match.state.ctx.gameover !== undefined) { matchesFinished++; movesInFinished += n; }
}

// ---------- tables ----------
const tables = Array.from({ length: NCLI }, (_, i) => ({ id: i, stock: [] }));
async function tableLoop(t) {
  while (!stopping) {
    if (gate) await gate;
    let m = t.stock.shift();
    if (!m) {
      if (measuring) createdInWindow++;
      try { m = await prepareMatch(); } catch (e) { err('prepare', e.message); await sleep(200); continue; }
    }
    await playMatch(m);
  }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function fillStock(perTable) {
  const jobs = [];
  for (const t of tables) for (let k = t.stock.length; k < perTable; k++) jobs.push(t);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const t = jobs[next++];
      try { t.stock.push(await prepareMatch()); } catch (e) { err('prepare', e.message); }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts['create-concurrency']) }, worker));
  return jobs.length;
}

function pct(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main() {
  const t0 = now();
  const fixed = opts['matches-per-client'] > 0;
  await fillStock(fixed ? opts['matches-per-client'] : 2);
  console.log(`prepared ${allMatches.length} matches in ${((now() - t0) / 1000).toFixed(1)} s`);

  const loops = tables.map(tableLoop);
  // Warmup (not measured; tables create matches inline when their stock runs out). Then
  // estimate each table's move rate (closed loop: 1 / mean move latency); if the stock is
  // short for the window, pause the tables, close the sockets of finished matches, top the
  // stock up (x1.5 margin), resume, settle 1 s and re-estimate (up to 3 rounds). Only then
  // the measured window opens, so no match should be created inside it (this is checked
  // and printed as "matches created inside window").
  await sleep(opts.warmup * 1000);
  const settle = 1;
  for (let round = 0; !fixed && round < 3; round++) {
    const perMatch = matchesFinished > 0 ? movesInFinished / matchesFinished : 7;
    const meanLat = latWarm.length ? latWarm.reduce((a, b) => a + b, 0) / latWarm.length : 50;
    const want = Math.ceil(((1000 / meanLat) * (opts.seconds + settle) / perMatch) * 1.5) + 2;
    const short = tables.some((t) => t.stock.length < want);
    console.log(`warmup round ${round}: ${latWarm.length} moves, mean ${meanLat.toFixed(1)} ms/move, ` +
      `${perMatch.toFixed(1)} moves/match, want ${want} matches/table${short ? '' : ' (stock ok)'}`);
    if (!short) break;
    let open; gate = new Promise((r) => { open = r; });
    while (allMatches.some((m) => m.pending)) await sleep(10);
    for (const m of allMatches) if (m.done) closeMatch(m);
    const tu = now();
    const made = await fillStock(want);
    console.log(`  paused: topped up ${made} matches in ${((now() - tu) / 1000).toFixed(1)} s`);
    gate = null; open();
    latWarm.length = 0;
    await sleep(settle * 1000);
  }

  // Measured window.
  const sp = opts['server-pid'];
  const srvBefore = sp ? procTicks(sp) : null;
  const pgBefore = pgSnapshot();
  const cpuBefore = process.cpuUsage();
  winStart = now(); measuring = true;
  await sleep(opts.seconds * 1000);
  winEnd = now(); measuring = false;
  const cpuLoad = process.cpuUsage(cpuBefore);
  const srvAfter = sp ? procTicks(sp) : null;
  const pgAfter = pgSnapshot();
  stopping = true;

  await Promise.race([Promise.all(loops), sleep(opts['move-timeout-ms'] + 1000)]);
  for (const m of allMatches) closeMatch(m);

  const secs = (winEnd - winStart) / 1000;
  const lat = latWin.sort((a, b) => a - b);
  const perMove = (ms) => (movesWin ? (ms / movesWin).toFixed(3) : 'n/a');
  const srvMs = srvBefore !== null && srvAfter !== null ? (srvAfter - srvBefore) * 1000 / CLK_TCK : null;
  const pg = pgDeltaMs(pgBefore, pgAfter);
  const loadMs = (cpuLoad.user + cpuLoad.system) / 1000;
  const r = (x) => x.toFixed(2);
  console.log(`--- boardgame.io load: ${NCLI} clients, window ${secs.toFixed(2)} s (warmup ${opts.warmup} s) ---`);
  console.log(`moves/s:            ${r(movesWin / secs)}`);
  console.log(`moves (window):     ${movesWin}   (all phases: ${movesTotal}; matches finished: ${matchesFinished})`);
  console.log(`latency ms:         p50 ${r(pct(lat, 50))}  p95 ${r(pct(lat, 95))}  p99 ${r(pct(lat, 99))}  max ${r(lat.length ? lat[lat.length - 1] : NaN)}`);
  console.log(`cpu ms/move server: ${srvMs === null ? 'n/a (no --server-pid)' : perMove(srvMs)}`);
  console.log(`cpu ms/move pg:     ${perMove(pg.all)}  (all postgres* processes; of which bgio_bench backends ${perMove(pg.ours)})`);
  console.log(`cpu ms/move load:   ${perMove(loadMs)}`);
  console.log(`errors:             ${errors.inWindow} in window, ${errors.total} total ${JSON.stringify(errors.kinds)}`);
  console.log(`matches created inside window: ${createdInWindow}`);
  process.exit(0);
}
main().catch((e) => { console.error('fatal:', e); process.exit(1); });
