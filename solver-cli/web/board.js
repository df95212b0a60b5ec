// The analysis board. It keeps a game (a start and the moves played, one entry a sowing) and a
// cursor into it, draws the position at the cursor with every move's value, and steps through the
// game with the buttons, the arrow keys and clicks on the move list or the perfect line. It knows
// no rules of its own: values, legal moves and the positions moves lead to all come from the API
// (/position for values, /moves for the legal moves of a position not solved in time).
'use strict';

const $ = (id) => document.getElementById(id);

const state = {
  rules: 'standard',
  start: null,
  // Each ply: { side: 'south'|'north', move: house 1..m, before, after, loss, keeps } (loss: the
  // value the move gave away, when known; keeps: what the move is proven to keep for its side, a
  // lower bound on the value after it, when known). A pie swap is a ply with move 'swap'.
  plies: [],
  cursor: 0,
  playAs: '',
  // Answers that arrive after the user has moved on are dropped.
  ticket: 0,
  answers: new Map(),
  abort: null,
  // The perfect line's request, aborted (and its search on the server with it) when the user
  // moves on.
  lineAbort: null,
  notation: 'canonical',
  // The position (rules|position) whose next search may run past the service's time limit: the
  // user asked to keep searching it.
  longer: null,
};

const signed = (value) => (value > 0 ? `+${value}` : String(value));
const sideLetter = (side) => (side === 'north' ? 'N' : 'S');
const position = () => (state.cursor === 0 ? state.start : state.plies[state.cursor - 1].after);

function startPosition(houses, seeds) {
  const row = Array(houses).fill(seeds);
  return [...row, 0, ...row, 0, 'S'].join(' ');
}

function parsePosition(text) {
  const parts = text.trim().split(/[\s,]+/);
  const side = parts.pop();
  return { bins: parts.map(Number), side: side === 'N' || side === 'n' ? 'north' : 'south' };
}

async function api(path, params, signal) {
  const response = await fetch(`/api/v1/${path}?${new URLSearchParams(params)}`, { signal });
  const body = await response.json();
  if (!response.ok) {
    const error = new Error(body.error || response.statusText);
    error.body = body;
    throw error;
  }
  return body;
}

function showError(message) {
  $('error').textContent = message || '';
  $('error').hidden = !message;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// ---- the board ----

function seedsOf(count) {
  const seeds = element('span', 'seeds');
  // Dots while they fit; the number is always there.
  for (let i = 0; i < Math.min(count, 18); i++) seeds.append(element('span', 'seed'));
  return seeds;
}

function store(side, bin, count, column) {
  const node = element('div', `store ${side}`);
  node.dataset.side = side;
  node.dataset.bin = String(bin);
  node.style.gridColumn = String(column);
  node.append(seedsOf(count), element('span', 'count', String(count)), element('span', 'label', `${side} store`));
  return node;
}

// A value as far as it is known: exact (`+4`), or the bounds proofs give (`≤ +4`, `≥ +2`, `?`);
// a bound of all the game's seeds says nothing.
// The proofs behind each bound that proofs give: `at least +4: PROOF; at most +4: PROOF, PROOF`.
function proofsText(known) {
  const bounds = [['at least', known.lower, known.lower_proofs], ['at most', known.upper, known.upper_proofs]];
  return bounds.filter(([, , proofs]) => proofs && proofs.length)
    .map(([words, bound, proofs]) => `${words} ${signed(bound)}: ${proofs.join(', ')}`).join('; ');
}

function valueText(known) {
  if (typeof known.value === 'number') return signed(known.value);
  if (typeof known.lower !== 'number') return '';
  const total = parsePosition(state.start).bins.reduce((sum, seeds) => sum + seeds, 0);
  if (known.lower > -total && known.upper < total) return `${signed(known.lower)}..${signed(known.upper)}`;
  if (known.lower > -total) return `≥ ${signed(known.lower)}`;
  if (known.upper < total) return `≤ ${signed(known.upper)}`;
  return '?';
}

// What a move's value means for its mover: kept the position's value (best), still wins, draws,
// loses; bounds that decide nothing are 'open'.
function meaning(move) {
  if (move.best) return 'best';
  const lower = typeof move.value === 'number' ? move.value : move.lower;
  const upper = typeof move.value === 'number' ? move.value : move.upper;
  if (lower > 0) return 'wins';
  if (upper < 0) return 'loses';
  if (lower === 0 && upper === 0) return 'draw';
  return 'open';
}

function house(side, number, bin, count, row, column, move) {
  const node = element('button', `house ${side}`);
  node.type = 'button';
  Object.assign(node.dataset, { side, house: String(number), bin: String(bin) });
  node.style.gridRow = String(row);
  node.style.gridColumn = String(column);
  // Playing a game, the player may hide the values of their own moves.
  const hidden = state.playAs && $('hide-values').checked;
  const known = move && !hidden && (typeof move.value === 'number' || typeof move.lower === 'number');
  const value = element('span', 'value', known ? valueText(move) : '');
  if (move) {
    if (known) value.classList.add(meaning(move));
    node.classList.add('playable');
    const proofs = known ? proofsText(move) : '';
    node.title = `play house ${number}` + (known ? `: value ${valueText(move)}` : '') +
      (move.extra_turn ? ', extra turn' : '') + (move.capture ? `, captures ${move.captured}` : '') +
      (proofs ? ` (proven: ${proofs})` : '');
    node.addEventListener('click', () => playMove(move));
  } else {
    node.disabled = true;
  }
  node.append(seedsOf(count), element('span', 'count', String(count)), value, element('span', 'label', String(number)));
  return node;
}

// North's row on top, right to left as South sees it; North's store left, South's store right.
// `moves` are the legal moves (with values where known); the user's opponent's houses in play
// mode stay closed.
function drawBoard(text, moves) {
  const { bins, side } = parsePosition(text);
  const m = (bins.length - 2) / 2;
  const board = $('board');
  board.style.setProperty('--houses', m);
  const yours = !state.playAs || state.playAs === side;
  const byBin = new Map(yours ? (moves || []).map((move) => [move.bin, move]) : []);
  const nodes = [store('north', 2 * m + 2, bins[2 * m + 1], 1)];
  for (let k = m; k >= 1; k--) {
    const bin = m + 1 + k;
    nodes.push(house('north', k, bin, bins[bin - 1], 1, m - k + 2, byBin.get(bin)));
  }
  for (let k = 1; k <= m; k++) {
    nodes.push(house('south', k, k, bins[k - 1], 2, k + 1, byBin.get(k)));
  }
  nodes.push(store('south', m + 1, bins[m], m + 2));
  board.replaceChildren(...nodes);
  // The house the last move was played from.
  const last = state.cursor > 0 ? state.plies[state.cursor - 1] : null;
  if (last && last.move !== 'swap') {
    const played = board.querySelector(`.house[data-side="${last.side}"][data-house="${last.move}"]`);
    if (played) played.classList.add('last-move');
    // The sowing: every house and store the move added seeds to lights up.
    const before = parsePosition(last.before).bins;
    for (const node of board.querySelectorAll('.house, .store')) {
      const bin = Number(node.dataset.bin);
      if (bins[bin - 1] > before[bin - 1]) node.classList.add('sown');
    }
  }
}

// ---- the game: moves, notation, address ----

// Turns: runs of plies by one side, with the index after each ply (where a click goes).
function turns() {
  const out = [];
  state.plies.forEach((ply, i) => {
    const last = out[out.length - 1];
    if (last && last.side === ply.side && ply.move !== 'swap' && last.plies[0].move !== 'swap') {
      last.plies.push({ ply, index: i + 1 });
    } else {
      out.push({ side: ply.side, plies: [{ ply, index: i + 1 }] });
    }
  });
  return out;
}

function moveText(ply) {
  if (ply.move === 'swap') return 'swap';
  return state.notation === 'irving' ? String(ply.move - 1) : String(ply.move);
}

function gameText() {
  const list = turns();
  if (state.notation === 'irving') {
    return list.map((turn) => turn.plies.map(({ ply }) => moveText(ply)).join('')).join('-');
  }
  return list.map((turn) => `${sideLetter(turn.side)} ${turn.plies.map(({ ply }) => moveText(ply)).join(' ')}`).join(' | ');
}

function drawMoveList() {
  const list = $('move-list');
  list.replaceChildren(...turns().map((turn) => {
    const item = element('li', turn.side);
    item.append(element('span', 'side', `${sideLetter(turn.side)} `));
    for (const { ply, index } of turn.plies) {
      const link = element('a', index === state.cursor ? 'ply current' : 'ply', moveText(ply));
      link.href = '#';
      link.dataset.index = String(index);
      if (ply.loss > 0) {
        link.title = `gave away ${ply.loss}`;
        link.append(element('span', 'lost', ` (−${ply.loss})`));
      }
      link.addEventListener('click', (event) => {
        event.preventDefault();
        goTo(index);
      });
      item.append(link, ' ');
    }
    return item;
  }));
  for (const [id, disabled] of [['first', state.cursor === 0], ['back', state.cursor === 0],
    ['forward', state.cursor === state.plies.length], ['last', state.cursor === state.plies.length]]) {
    $(id).disabled = disabled;
  }
}

function saveAddress() {
  const params = { rules: state.rules, start: state.start };
  if (state.plies.length) params.moves = state.plies.map((ply) => ply.move).join(',');
  if (state.cursor !== state.plies.length) params.ply = String(state.cursor);
  if (state.playAs) params.play = state.playAs;
  history.replaceState(null, '', `#${new URLSearchParams(params)}`);
}

// Replays houses (or 'swap') from the start through /moves; stops at the first illegal one.
// The plies of `moves` from the start. An illegal move throws an error that names it and keeps
// the plies before it (`error.plies`), so that an import stops there instead of losing the game.
async function replay(moves) {
  const plies = [];
  let at = state.start;
  for (const [index, move] of moves.entries()) {
    const { side } = parsePosition(at);
    if (move === 'swap') {
      plies.push({ side, move, before: at, after: at });
      continue;
    }
    const legal = await api('moves', { pos: at, rules: state.rules });
    const found = legal.moves.find((entry) => entry.move === move);
    if (!found) {
      const mover = side === 'north' ? 'North' : 'South';
      const error = new Error(`move ${index + 1} of the game, house ${move}, is not legal for ${mover} in ${at}: ` +
        `the game is kept up to the move before it`);
      error.plies = plies;
      throw error;
    }
    plies.push({ side, move, before: at, after: found.position });
    at = found.position;
  }
  return plies;
}

// Reads "S 3 6 | N 2" (houses 1..m) or Irving's "36-1-0" (houses 0..m-1) into houses.
function parseGameText(text) {
  const trimmed = text.trim();
  if (!trimmed) return [];
  if (/^[0-9-]+$/.test(trimmed) && !trimmed.includes(' ')) {
    return trimmed.split('-').flatMap((turn) => [...turn].map((digit) => Number(digit) + 1));
  }
  const moves = [];
  for (const turn of trimmed.split('|')) {
    const words = turn.trim().split(/\s+/).filter(Boolean);
    if (words.length && /^[SNsn]$/.test(words[0])) words.shift();
    for (const word of words) {
      if (word === 'swap') moves.push('swap');
      else if (/^[0-9]+$/.test(word)) moves.push(Number(word));
      else throw new Error(`'${word}' is not a house number`);
    }
  }
  return moves;
}

// ---- showing a position ----

function showStatus(answer) {
  const mover = answer.to_move === 'north' ? 'North' : 'South';
  $('to-move').textContent = answer.game_over ? 'Game over' : `${mover} to move`;
  $('value').textContent = `value ${valueText(answer)} for ${mover}`;
  $('wdl').textContent = answer.wdl ? `(${answer.wdl})` : '';
  const sources = { database: 'from the endgame database', search: 'by exact search', book: 'from the opening book' };
  // Bounds from the book: a perfect line passes here (its move is best), or a table bounds it;
  // proofs may give a bound as well.
  const line = answer.source === 'book' && 'lower' in answer;
  const proofs = 'lower' in answer ? proofsText(answer) : '';
  // (A result file given to the server with --book claims its proofs; this program has not
  // checked them, and says so.)
  $('source').textContent = answer.source === 'proof' ? `proven by checked proofs: ${proofs}`
    : answer.source === 'claimed' ? `claimed by a result file given to the server, not checked by it${proofs ? `: ${proofs}` : ''}`
    : line ? `from a perfect line or table in the opening book, no search${proofs ? `; proofs: ${proofs}` : ''}`
      : sources[answer.source] || '';
}

function clearStatus() {
  for (const id of ['value', 'wdl', 'source', 'mainline-text', 'result', 'pie']) $(id).textContent = '';
  $('pie').hidden = true;
  $('longer').hidden = true;
}

// While a search of `at` runs: `say(text)` every quarter second with the seconds so far and
// what /progress says it has proven. Returns the function that stops it.
function watchSearch(ticket, at, say) {
  const clock = Date.now();
  let known = '';
  const tick = () => {
    if (ticket === state.ticket) say(`${Math.floor((Date.now() - clock) / 1000)} s${known}`);
  };
  const poll = async () => {
    try {
      const progress = await api('progress', { pos: at, rules: state.rules });
      if (!progress.searching || ticket !== state.ticket) return;
      const nodes = progress.nodes >= 1e6 ? `${(progress.nodes / 1e6).toFixed(1)} M nodes` : `${progress.nodes} nodes`;
      const bounds = progress.bounds;
      const next = progress.phase === 'line' ? 'now the line' : "now every move's";
      const value = !bounds ? '' : bounds.lower === bounds.upper
        ? `, value ${signed(bounds.lower)}, ${next}`
        : `, value from ${signed(bounds.lower)} to ${signed(bounds.upper)}`;
      known = `, ${nodes}${value}`;
      tick();
    } catch (err) {
      // Progress is a courtesy: the answer itself still comes.
    }
  };
  tick();
  const timer = setInterval(tick, 250);
  const poller = setInterval(poll, 1000);
  return () => {
    clearInterval(timer);
    clearInterval(poller);
  };
}

// While the position's search runs (`what` it searches for): its progress, and a way out.
function searching(ticket, at, what = 'searching') {
  $('cancel').hidden = false;
  const stop = watchSearch(ticket, at, (progress) => {
    $('to-move').textContent = `${what}… ${progress}`;
  });
  return () => {
    stop();
    $('cancel').hidden = true;
  };
}

async function show() {
  const ticket = ++state.ticket;
  if (state.abort) state.abort.abort();
  if (state.lineAbort) state.lineAbort.abort();
  const at = position();
  $('position-text').value = at;
  saveAddress();
  drawMoveList();
  showError('');
  clearStatus();
  showPie(at);
  const key = `${state.rules}|${at}`;
  let answer = state.answers.get(key);
  // The engine's own last move kept a bound here: it plays a move that keeps it (the proofs',
  // else one a zero-window search finds), which costs far less than the position's value.
  const kept = keptBy(parsePosition(at).side);
  if (!answer && enginesTurn(at) && kept !== undefined) {
    await playKeeping(at, kept, ticket);
    return;
  }
  if (!answer) {
    drawBoard(at, null);
    state.abort = new AbortController();
    const done = searching(ticket, at);
    const params = { pos: at, rules: state.rules };
    if (state.longer === key || patientEngine(at)) params.longer = 1;
    state.longer = null;
    try {
      answer = await api('position', params, state.abort.signal);
      state.answers.set(key, answer);
    } catch (err) {
      done();
      if (ticket !== state.ticket) return;
      await unsolved(at, err);
      return;
    }
    done();
    if (ticket !== state.ticket) return;
  }
  drawBoard(at, answer.moves);
  showStatus(answer);
  document.body.dataset.ready = String(ticket);
  if (state.playAs && !answer.game_over && answer.to_move !== state.playAs) {
    setTimeout(() => ticket === state.ticket && replyTo(answer), 300);
  }
  if (answer.source === 'proof' || (answer.source === 'claimed' && 'lower' in answer)) showProvenLine(at, ticket);
  else showMainline(at, ticket);
}

// What `side`'s last move is proven to keep for it (a number), where the game since went on
// with the other side's moves only, which cannot lower it; undefined where nothing is known.
function keptBy(side) {
  for (let i = state.cursor - 1; i >= 0; i--) {
    const ply = state.plies[i];
    if (ply.move === 'swap') return undefined;
    if (ply.side === side) return typeof ply.keeps === 'number' ? ply.keeps : undefined;
  }
  return undefined;
}

// The engine to move at `at`, where its last move kept `lower`: the legal moves drawn, then the
// move that keeps `lower` played.
async function playKeeping(at, lower, ticket) {
  let moves;
  try {
    moves = (await api('moves', { pos: at, rules: state.rules })).moves;
  } catch (err) {
    if (ticket === state.ticket) showError(err.message);
    return;
  }
  if (ticket !== state.ticket) return;
  drawBoard(at, moves);
  const mover = parsePosition(at).side === 'north' ? 'North' : 'South';
  $('to-move').textContent = `${mover} to move`;
  $('value').textContent = `value at least ${signed(lower)} for ${mover}, which its last move keeps`;
  document.body.dataset.ready = String(ticket);
  const chosen = await keepingMove(at, lower, moves, ticket);
  if (chosen) setTimeout(() => ticket === state.ticket && play(at, parsePosition(at).side, chosen), 300);
}

// A move of `at` (one of `moves`) that keeps at least `lower` for the engine: the proofs' move
// where they name one, else a zero-window search's; out of time, the estimate's best, said to
// be unproven. Null where the user moved on or cancelled meanwhile.
async function keepingMove(at, lower, moves, ticket) {
  const patient = patientEngine(at);
  const what = `searching${patient ? ' past the time limit' : ''} for a move that keeps at least ${signed(lower)}`;
  const done = searching(ticket, at, what);
  state.abort = new AbortController();
  try {
    const params = { pos: at, rules: state.rules, at_least: lower };
    if (patient) params.longer = 1;
    const found = await api('keeping-move', params, state.abort.signal);
    done();
    if (ticket !== state.ticket) return null;
    const move = moves.find((m) => m.move === found.move);
    const kept = signed(found.keeps.lower);
    const proofs = found.keeps.lower_proofs;
    const said = found.nodes
      ? `The engine plays ${move.move}: it keeps at least ${kept}, proven by a search (${found.nodes} nodes).`
      : `The engine plays ${move.move}: it keeps at least ${kept}, proven${proofs.length ? ` (${proofs.join(', ')})` : ''}.`;
    return { move, said, keeps: found.keeps.lower };
  } catch (err) {
    done();
    if (ticket !== state.ticket) return null;
    if (err.name === 'AbortError') {
      $('to-move').textContent = 'search cancelled';
      return null;
    }
    const estimates = (err.body && err.body.estimates) || [];
    const rated = estimates.length ? moves.find((m) => m.move === estimates[0].move) : undefined;
    const move = rated || moves[0];
    const said = rated
      ? `No move was proven to keep the bound in time: the engine plays ${move.move}, best by its estimate (${signed(estimates[0].value)}), not proven.`
      : `No move was proven to keep the bound in time: the engine plays ${move.move}, not proven.`;
    return { move, said, keeps: undefined };
  }
}

// Whether the user plays against the engine and the engine is to move at `at`.
function enginesTurn(at) {
  return Boolean(state.playAs) && parsePosition(at).side !== state.playAs;
}

// Whether the engine is to move at `at` and the user lets it search past the time limit.
function patientEngine(at) {
  return enginesTurn(at) && $('patient').checked;
}

// A position not solved (time limit, busy, cancelled): its legal moves without values.
async function unsolved(at, err) {
  const cancelled = err.name === 'AbortError';
  const mover = parsePosition(at).side === 'north' ? 'North' : 'South';
  $('to-move').textContent = cancelled ? 'search cancelled' : 'not solved';
  const bounds = err.body && err.body.bounds;
  const otherKept = keptBy(parsePosition(at).side === 'north' ? 'south' : 'north');
  if (bounds) $('value').textContent = `value from ${signed(bounds.lower)} to ${signed(bounds.upper)} for ${mover}`;
  else if (otherKept !== undefined) $('value').textContent = `value at most ${signed(-otherKept)} for ${mover}, by the other side's last move`;
  showError(cancelled ? '' : err.message);
  // Out of time: the service may search this one position longer, if the user wants to wait.
  const offer = err.body && err.body.longer_time_limit;
  if (offer && !enginesTurn(at)) {
    $('longer').textContent = `Keep searching (up to ${offer >= 120 ? `${Math.round(offer / 60)} min` : `${Math.round(offer)} s`})`;
    $('longer').hidden = false;
  }
  let moves = err.body && err.body.moves;
  if (!moves) {
    try {
      moves = (await api('moves', { pos: at, rules: state.rules })).moves;
    } catch (moveErr) {
      showError(moveErr.message);
      return;
    }
  }
  drawBoard(at, moves);
  document.body.dataset.ready = String(state.ticket);
  // Playing against the engine: without a value in time it plays the move the server's estimate
  // rates best (the first legal move without one), and says that it is not proven.
  const { side } = parsePosition(at);
  if (enginesTurn(at) && moves.length) {
    const ticket = state.ticket;
    const estimates = (err.body && err.body.estimates) || [];
    const rated = estimates.length ? moves.find((m) => m.move === estimates[0].move) : undefined;
    const move = rated || moves[0];
    $('loss').textContent = rated
      ? `Not solved in time: the engine plays ${move.move}, best by its estimate (${signed(estimates[0].value)}), not proven.`
      : `Not solved in time: the engine plays ${move.move}, the first legal move, not proven.`;
    setTimeout(() => ticket === state.ticket && replyTo({ to_move: side, moves: [{ ...move, best: true }], legal: moves }), 300);
  }
}

async function showMainline(at, ticket) {
  const text = $('mainline-text');
  delete text.dataset.text;
  state.lineAbort = new AbortController();
  const start = Date.now();
  const stop = watchSearch(ticket, at, (progress) => {
    // Quiet for the first second: most lines come at once.
    if (Date.now() - start > 1000) text.textContent = `searching for a perfect line… ${progress}`;
  });
  try {
    const line = await api('mainline', { pos: at, rules: state.rules }, state.lineAbort.signal);
    stop();
    if (ticket !== state.ticket) return;
    text.replaceChildren();
    if (!line.line.length) text.textContent = '(no moves: the game is over)';
    // The lines are plain play's: where the pie rule's swap is still to come, say so.
    const plain = pieFirstTurn(at, 'south') || swapOffered(at);
    if (plain && line.line.length) text.append('without the swap: ');
    let side = null;
    line.line.forEach((entry, i) => {
      if (entry.side !== side) {
        if (side !== null) text.append(' | ');
        text.append(`${sideLetter(entry.side)} `);
        side = entry.side;
      }
      const link = element('a', 'ply', String(entry.move));
      link.href = '#';
      link.addEventListener('click', (event) => {
        event.preventDefault();
        followLine(line.line.slice(0, i + 1), at);
      });
      text.append(link, ' ');
    });
    text.dataset.text = line.text;
    if (line.south_margin !== null && line.south_margin !== undefined) {
      const margin = line.south_margin;
      const play = plain ? 'Perfect play without the swap' : 'Perfect play';
      $('result').textContent = margin === 0 ? `${play} ends in a draw.`
        : `${play} ends with ${margin > 0 ? 'South' : 'North'} winning by ${Math.abs(margin)}.`;
    } else if (line.repeats) {
      $('result').textContent = 'The line comes back to a position it passed: endless play scores 0.';
    }
  } catch (err) {
    stop();
    if (ticket === state.ticket) text.textContent = err.name === 'AbortError' ? '' : err.message;
  }
}

// Where proofs give the answer: the line that keeps what they prove, as far as they reach (no
// search), and what is proven where it ends.
async function showProvenLine(at, ticket) {
  const text = $('mainline-text');
  delete text.dataset.text;
  try {
    const proven = await api('proven-line', { pos: at, rules: state.rules });
    if (ticket !== state.ticket) return;
    // No move proven to keep a bound: a search for a perfect line, as anywhere else.
    if (!proven.line.length) {
      showMainline(at, ticket);
      return;
    }
    text.replaceChildren();
    let side = null;
    proven.line.forEach((entry, i) => {
      if (entry.side !== side) {
        text.append(side === null ? 'Proven play: ' : ' | ', `${sideLetter(entry.side)} `);
        side = entry.side;
      }
      const link = element('a', 'ply', String(entry.move));
      link.href = '#';
      link.title = `keeps ${valueText(entry.keeps)} for ${entry.side === 'north' ? 'North' : 'South'}`;
      link.addEventListener('click', (event) => {
        event.preventDefault();
        followLine(proven.line.slice(0, i + 1), at);
      });
      text.append(link, ' ');
    });
    text.dataset.text = proven.text;
    const end = parsePosition(proven.end).side === 'north' ? 'North' : 'South';
    const known = proven.end_known;
    $('result').textContent = proven.game_over ? 'The proven line ends the game.'
      : known ? `The proofs end here: ${valueText(known)} for ${end} to move${proofsText(known) ? ` (${proofsText(known)})` : ''}; beyond, a search.`
        : 'The proofs end here; beyond, a search.';
  } catch (err) {
    if (ticket === state.ticket) text.textContent = err.name === 'AbortError' ? '' : err.message;
  }
}

// Whether, under the pie rule, the game at `at` (the end of the move list) has had only South's
// moves and `side` is to move: South within its first turn, or North right after it.
function pieFirstTurn(at, side) {
  return /\bpie=on\b/.test(state.rules) && state.cursor === state.plies.length &&
    state.plies.every((ply) => ply.side === 'south') && parsePosition(at).side === side;
}

// Whether North may swap sides at `at` now: under the pie rule, right after South's first turn.
function swapOffered(at) {
  return state.plies.length > 0 && pieFirstTurn(at, 'north');
}

// The pie rule: North's first turn may begin by swapping sides.
function showPie(at) {
  const offered = swapOffered(at);
  $('swap').hidden = !offered;
  if (offered) {
    $('pie').hidden = false;
    $('pie').textContent = 'Pie rule: North may swap sides now, taking over South\'s position and its value.';
  }
}

// ---- moving ----

function cut() {
  state.plies = state.plies.slice(0, state.cursor);
}

function playMove(move) {
  const at = position();
  const { side } = parsePosition(at);
  const next = state.plies[state.cursor];
  if (next && next.move === move.move && next.before === at) {
    state.cursor++;
    show();
    return;
  }
  const answer = state.answers.get(`${state.rules}|${at}`);
  const exact = answer && typeof answer.value === 'number' && typeof move.value === 'number';
  const loss = exact ? answer.value - move.value : undefined;
  cut();
  const keeps = typeof move.value === 'number' ? move.value : undefined;
  state.plies.push({ side, move: move.move, before: at, after: move.position, loss, keeps });
  state.cursor = state.plies.length;
  $('loss').textContent = loss > 0 ? `${side === 'north' ? 'North' : 'South'}'s move ${move.move} gave away ${loss}.`
    : loss === 0 ? `${side === 'north' ? 'North' : 'South'}'s move ${move.move} keeps the value.` : '';
  show();
}

// Perfect play's reply: one of the best moves, ties broken at random.
async function replyTo(answer) {
  // Where proofs give only bounds, no move may be proven best: one that keeps the position's
  // proven lower bound (a proof's move), else, past the proofs' leaves, one a search proves to
  // keep it, else the one with the best bounds, said to be unproven.
  const at = position();
  // Under the pie rule the engine as North takes South's side when the position is proven worse
  // for North than for South: North's value below 0, whose opposite the swap gives it.
  const northAtMost = typeof answer.value === 'number' ? answer.value : answer.upper;
  if (swapOffered(at) && typeof northAtMost === 'number' && northAtMost < 0) {
    swapSides();
    $('loss').textContent = `The engine swaps sides: North's value here is ${answer.value === northAtMost ? '' : 'at most '}${signed(northAtMost)}, so it takes South's.`;
    return;
  }
  const ticket = state.ticket;
  const proven = answer.moves.filter((move) => move.best);
  let move = proven.length ? proven[Math.floor(Math.random() * proven.length)] : answer.moves[0];
  const provenBound = typeof answer.lower === 'number' && answer.lower_proofs && answer.lower_proofs.length;
  const keeps = !proven.length && provenBound && move.lower === answer.lower &&
    move.lower_proofs && move.lower_proofs.length;
  let chosen;
  if (proven.length) {
    // A best move keeps the value where it is exact, else its proven lower bound (an unproven
    // reply comes with neither).
    const lower = move.lower_proofs && move.lower_proofs.length ? move.lower : undefined;
    // Under the pie rule the answers value South's first turn as the swap leaves it: the best
    // moves make a fairest first turn, not the plain game's best, which the swap would take.
    const said = pieFirstTurn(at, 'south')
      ? `The engine plays ${move.move}: under the pie rule it opens with a fairest first turn, keeping ${signed(move.value ?? move.lower)} whether North swaps or not.` : '';
    chosen = { move, said, keeps: typeof answer.value === 'number' ? answer.value : lower };
  } else if (keeps) {
    chosen = { move, said: `The engine plays ${move.move}: it keeps at least ${signed(move.lower)}, proven (${move.lower_proofs.join(', ')}).`, keeps: move.lower };
  } else if (provenBound) {
    const kept = keptBy(answer.to_move);
    chosen = await keepingMove(at, Math.max(answer.lower, kept === undefined ? answer.lower : kept), answer.moves, ticket);
    if (!chosen) return;
  } else {
    chosen = { move, said: `No move is proven best here: the engine plays ${move.move}, the best by the proofs' bounds, not proven.`, keeps: undefined };
  }
  play(at, answer.to_move, chosen);
}

// Plays the engine's `chosen` move ({ move, said, keeps }) by `side` at `at`.
function play(at, side, chosen) {
  const { move, said, keeps } = chosen;
  cut();
  state.plies.push({ side, move: move.move, before: at, after: move.position, loss: 0, keeps });
  state.cursor = state.plies.length;
  show();
  if (said) $('loss').textContent = said;
}

function swapSides() {
  const at = position();
  cut();
  state.plies.push({ side: 'north', move: 'swap', before: at, after: at });
  state.cursor = state.plies.length;
  if (state.playAs) state.playAs = state.playAs === 'south' ? 'north' : 'south';
  $('play-as').value = state.playAs;
  show();
}

// Goes down a line of the perfect play from `from` (the position at the cursor).
function followLine(entries, from) {
  cut();
  let at = from;
  for (const entry of entries) {
    state.plies.push({ side: entry.side, move: entry.move, before: at, after: entry.position, loss: 0 });
    at = entry.position;
  }
  state.cursor = state.plies.length;
  show();
}

function goTo(index) {
  state.cursor = Math.max(0, Math.min(state.plies.length, index));
  $('loss').textContent = '';
  show();
}

// ---- the openings explorer ----

async function showExplorer(offer) {
  const has = (offer.openings || []).some((start) => start.position === state.start &&
    (start.rules === state.rules || start.rules === state.rules.replace(/ pie=on\b/, '')));
  $('explorer').hidden = !has;
  if (!has) return;
  let table;
  try {
    table = await api('openings', { pos: state.start, rules: state.rules });
  } catch (err) {
    $('explorer').hidden = true;
    return;
  }
  const proven = table.source === 'proof' || table.source === 'claimed';
  // A start has South to move; the replies job's tables start after South's first turn.
  const mover = parsePosition(state.start).side === 'north' ? 'North' : 'South';
  const perhaps = table.perhaps_fairest.length ? `, perhaps also ${table.perhaps_fairest.join(', ')}` : '';
  const pie = typeof table.pie_value === 'number'
    ? `; under the pie rule ${signed(table.pie_value)} (fairest: ${table.fairest.join(', ')}${perhaps})` : '';
  $('explorer-summary').textContent = proven
    ? `Value ${valueText(table)} for South, ${table.source === 'claimed' ? 'claimed by a result file given to the server, not checked by it' : 'proven by checked proofs'} (${proofsText(table)}); ` +
      `each first turn as far as they reach${pie}.`
    : `Value ${signed(table.value)} for ${mover} (best: ${table.best.join(', ')})${pie}` +
      (table.claimed_by ? `, claimed by ${table.claimed_by}, a result file given to the server, not checked by it.` : '.');
  $('explorer-rows').replaceChildren(...table.openings.map((opening) => {
    const row = element('tr');
    const play = element('a', 'ply', opening.move);
    play.href = '#';
    play.addEventListener('click', async (event) => {
      event.preventDefault();
      try {
        state.plies = await replay(opening.move.split(' ').map(Number));
        state.cursor = state.plies.length;
        show();
      } catch (err) {
        showError(err.message);
      }
    });
    const marks = [];
    if (proven && typeof table.value === 'number' && opening.value === table.value) marks.push('best');
    if (!proven && table.best.includes(opening.move)) marks.push('best');
    if (table.fairest.includes(opening.move)) marks.push('fairest');
    const value = element('td', 'value-cell', valueText(opening));
    row.append(element('td'), value, element('td', '', marks.join(', ')));
    row.firstChild.append(play);
    return row;
  }));
}

// ---- setup ----

let offer = { rule_sets: [{ name: 'standard', rules: 'standard' }], max_houses: 6, openings: [] };

function chosenRules() {
  return $('rules-text').value.trim() || $('rules').value;
}

async function begin(start, moves, cursor) {
  // A position the server refuses (bad text, bad rules) is shown as the error, with the board
  // left as it was: never a board drawn from text that is not a position.
  try {
    await api('moves', { pos: start, rules: chosenRules() });
  } catch (err) {
    showError(err.message);
    return;
  }
  state.rules = chosenRules();
  state.start = start;
  state.answers.clear();
  $('loss').textContent = '';
  showExplorer(offer);
  return replay(moves).then((plies) => {
    state.plies = plies;
    state.cursor = cursor === undefined ? plies.length : Math.min(cursor, plies.length);
    show();
  }).catch(async (err) => {
    state.plies = err.plies || [];
    state.cursor = state.plies.length;
    await show();
    showError(err.message);
  });
}

function options(select, values, chosen) {
  select.replaceChildren(...values.map(([value, label]) => {
    const option = element('option', '', label);
    option.value = String(value);
    option.selected = String(value) === String(chosen);
    return option;
  }));
}

function onKey(event) {
  if (event.target.closest('input, select, textarea')) return;
  const steps = { ArrowLeft: state.cursor - 1, ArrowRight: state.cursor + 1, Home: 0, End: state.plies.length };
  if (event.key in steps) {
    event.preventDefault();
    goTo(steps[event.key]);
  }
}

// Shows the game the address names: rules, start, moves, the place in them, the side played.
async function loadAddress() {
  const saved = new URLSearchParams(location.hash.slice(1));
  const rules = saved.get('rules') || 'standard';
  const names = offer.rule_sets.map((set) => [set.name, set.name]);
  names.push(['standard direction=cw', 'standard, clockwise']);
  const named = names.some(([name]) => name === rules);
  options($('rules'), names, named ? rules : 'standard');
  // (Cleared for a named set: a rule text left from the last address would override it.)
  $('rules-text').value = named ? '' : rules;
  const sizes = (n) => Array.from({ length: n }, (_, i) => [i + 1, String(i + 1)]);
  const start = saved.get('start') || saved.get('pos');
  const bins = start ? parsePosition(start).bins : null;
  options($('houses'), sizes(offer.max_houses), bins ? (bins.length - 2) / 2 : 6);
  options($('seeds'), sizes(8), bins ? Math.max(1, bins[0]) : 4);
  state.playAs = saved.get('play') || '';
  $('play-as').value = state.playAs;
  const moves = saved.get('moves') ? saved.get('moves').split(',').map((m) => (m === 'swap' ? m : Number(m))) : [];
  const ply = saved.get('ply');
  await begin(start || startPosition(6, 4), moves, ply === null ? undefined : Number(ply));
}

async function init() {
  try {
    offer = await api('rules', {});
  } catch (err) {
    showError(err.message);
  }
  $('setup').addEventListener('submit', (event) => {
    event.preventDefault();
    begin(startPosition(Number($('houses').value), Number($('seeds').value)), []);
  });
  $('load').addEventListener('submit', (event) => {
    event.preventDefault();
    begin($('position-text').value.trim(), []);
  });
  $('first').addEventListener('click', () => goTo(0));
  $('back').addEventListener('click', () => goTo(state.cursor - 1));
  $('forward').addEventListener('click', () => goTo(state.cursor + 1));
  $('last').addEventListener('click', () => goTo(state.plies.length));
  $('cancel').addEventListener('click', () => state.abort && state.abort.abort());
  $('longer').addEventListener('click', () => {
    state.longer = `${state.rules}|${position()}`;
    show();
  });
  $('swap').addEventListener('click', swapSides);
  $('play-as').addEventListener('change', () => {
    state.playAs = $('play-as').value;
    show();
  });
  $('hide-values').addEventListener('change', () => show());
  for (const radio of document.querySelectorAll('input[name=notation]')) {
    radio.addEventListener('change', () => {
      state.notation = radio.value;
      drawMoveList();
    });
  }
  $('export').addEventListener('click', () => {
    $('game-text').value = gameText();
  });
  $('game-io').addEventListener('submit', (event) => {
    event.preventDefault();
    let moves;
    try {
      moves = parseGameText($('game-text').value);
    } catch (err) {
      showError(err.message);
      return;
    }
    begin(state.start, moves);
  });
  document.addEventListener('keydown', onKey);
  // An address edited or followed by hand (the page's own updates replace it without this event).
  window.addEventListener('hashchange', loadAddress);
  await loadAddress();
}

init();
