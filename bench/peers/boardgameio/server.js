'use strict';
// boardgame.io server for the load benchmark: Tic-Tac-Toe (tutorial game),
// storage = bgio-postgres PostgresStore (default) or in-memory (STORE=memory).
const { Server, Origins } = require('boardgame.io/server');
const { INVALID_MOVE } = require('boardgame.io/core');

const LINES = [
  [0, 1, 2], [3, 4, 5], [6, 7, 8],
  [0, 3, 6], [1, 4, 7], [2, 5, 8],
  [0, 4, 8], [2, 4, 6],
];
const isVictory = (cells) =>
  LINES.some(([a, b, c]) => cells[a] !== null && cells[a] === cells[b] && cells[a] === cells[c]);
const isDraw = (cells) => cells.every((c) => c !== null);

const TicTacToe = {
  name: 'tic-tac-toe',
  setup: () => ({ cells: Array(9).fill(null) }),
  turn: { minMoves: 1, maxMoves: 1 },
  moves: {
    clickCell: ({ G, playerID }, id) => {
      if (!Number.isInteger(id) || id < 0 || id > 8 || G.cells[id] !== null) return INVALID_MOVE;
      G.cells[id] = playerID;
    },
  },
  endIf: ({ G, ctx }) => {
    if (isVictory(G.cells)) return { winner: ctx.currentPlayer };
    if (isDraw(G.cells)) return { draw: true };
  },
};

const PORT = Number(process.env.PORT || 8100);
const STORE = process.env.STORE || 'postgres';
const PG_URL = 'postgresql://postgres@127.0.0.1:5432/bgio_bench'; // run.sh makes it anew

let db; // undefined => boardgame.io's default in-memory store
if (STORE !== 'memory') {
  const { PostgresStore } = require('bgio-postgres');
  // Sequelize logs every SQL statement by default; keep the server silent per
  // request (LOG_SQL=1 prints them, only for inspecting what one move does).
  db = new PostgresStore(PG_URL, { logging: process.env.LOG_SQL ? (sql) => console.log(sql) : false });
}

const server = Server({ games: [TicTacToe], db, origins: [Origins.LOCALHOST] });
let servers;
server.run({ port: PORT }).then((s) => {
  servers = s;
  console.log(`bgio server pid=${process.pid} port=${PORT} store=${STORE}`);
}, (err) => { console.error('server failed to start:', err); process.exit(1); });

const stop = () => { try { if (servers) server.kill(servers); } catch (e) {} process.exit(0); };
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
