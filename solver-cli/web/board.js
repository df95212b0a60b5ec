// The analysis board: draws the position the API describes, plays a house by stepping to the
// position the API gave for that move, and keeps the positions played so far for undo. It knows
// no rules of its own: every value, legal move and resulting position comes from the server.
'use strict';

const $ = (id) => document.getElementById(id);

const state = {
  rules: 'standard',
  position: null,
  history: [],
  // Answers that arrive after the user has moved on are dropped.
  ticket: 0,
};

function signed(value) {
  return value > 0 ? `+${value}` : String(value);
}

function startPosition(houses, seeds) {
  const row = Array(houses).fill(seeds);
  return [...row, 0, ...row, 0, 'S'].join(' ');
}

function parsePosition(text) {
  const parts = text.trim().split(/[\s,]+/);
  const side = parts.pop();
  return { bins: parts.map(Number), side: side === 'N' ? 'north' : 'south' };
}

async function api(path, params) {
  const response = await fetch(`/api/v1/${path}?${new URLSearchParams(params)}`);
  const body = await response.json();
  if (!response.ok) {
    throw new Error(body.error || response.statusText);
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

function seedsOf(count) {
  const seeds = element('span', 'seeds');
  // Dots while they fit; the number is always there.
  for (let i = 0; i < Math.min(count, 18); i++) seeds.append(element('span', 'seed'));
  return seeds;
}

function store(side, count, column) {
  const node = element('div', `store ${side}`);
  node.dataset.side = side;
  node.style.gridColumn = String(column);
  node.append(seedsOf(count), element('span', 'count', String(count)), element('span', 'label', `${side} store`));
  return node;
}

function house(side, number, bin, count, row, column, move) {
  const node = element('button', `house ${side}`);
  node.type = 'button';
  Object.assign(node.dataset, { side, house: String(number), bin: String(bin) });
  node.style.gridRow = String(row);
  node.style.gridColumn = String(column);
  const value = element('span', 'value', move ? signed(move.value) : '');
  if (move) {
    value.classList.add(move.best ? 'best' : move.value === 0 ? 'draw' : 'worse');
    node.classList.add('playable');
    node.title = `play house ${number}: value ${signed(move.value)}` +
      (move.extra_turn ? ', extra turn' : '') + (move.capture ? `, captures ${move.captured}` : '');
    node.addEventListener('click', () => play(move));
  } else {
    node.disabled = true;
  }
  node.append(seedsOf(count), element('span', 'count', String(count)), value, element('span', 'label', String(number)));
  return node;
}

// North's row on top, right to left as South sees it; North's store left, South's store right.
function drawBoard(position, answer) {
  const { bins } = parsePosition(position);
  const m = (bins.length - 2) / 2;
  const board = $('board');
  board.style.setProperty('--houses', m);
  const moves = new Map((answer ? answer.moves : []).map((move) => [move.bin, move]));
  const nodes = [store('north', bins[2 * m + 1], 1)];
  for (let k = m; k >= 1; k--) {
    const bin = m + 1 + k;
    nodes.push(house('north', k, bin, bins[bin - 1], 1, m - k + 2, moves.get(bin)));
  }
  for (let k = 1; k <= m; k++) {
    nodes.push(house('south', k, k, bins[k - 1], 2, k + 1, moves.get(k)));
  }
  nodes.push(store('south', bins[m], m + 2));
  board.replaceChildren(...nodes);
}

function showStatus(answer) {
  const mover = answer.to_move === 'north' ? 'North' : 'South';
  $('to-move').textContent = answer.game_over ? 'Game over' : `${mover} to move`;
  $('value').textContent = `value ${signed(answer.value)} for ${mover}`;
  $('wdl').textContent = `(${answer.wdl})`;
  const sources = { database: 'from the endgame database', search: 'by exact search' };
  $('source').textContent = sources[answer.source] || '';
}

async function show(position) {
  const ticket = ++state.ticket;
  state.position = position;
  $('position-text').value = position;
  $('undo').disabled = state.history.length === 0;
  history.replaceState(null, '', `#${new URLSearchParams({ rules: state.rules, pos: position })}`);
  drawBoard(position, null);
  showError('');
  $('to-move').textContent = 'thinking…';
  for (const id of ['value', 'wdl', 'source', 'mainline-text', 'result']) $(id).textContent = '';
  let answer;
  try {
    answer = await api('position', { pos: position, rules: state.rules });
  } catch (err) {
    if (ticket === state.ticket) {
      $('to-move').textContent = '';
      showError(err.message);
    }
    return;
  }
  if (ticket !== state.ticket) return;
  drawBoard(position, answer);
  showStatus(answer);
  document.body.dataset.ready = String(ticket);
  try {
    const line = await api('mainline', { pos: position, rules: state.rules });
    if (ticket !== state.ticket) return;
    $('mainline-text').textContent = line.text || '(no moves: the game is over)';
    if (line.south_margin !== null && line.south_margin !== undefined) {
      const margin = line.south_margin;
      $('result').textContent = margin === 0 ? 'Perfect play ends in a draw.'
        : `Perfect play ends with ${margin > 0 ? 'South' : 'North'} winning by ${Math.abs(margin)}.`;
    } else if (line.repeats) {
      $('result').textContent = 'The line comes back to a position it passed: endless play scores 0.';
    }
  } catch (err) {
    if (ticket === state.ticket) $('mainline-text').textContent = err.message;
  }
}

function play(move) {
  state.history.push(state.position);
  show(move.position);
}

function undo() {
  if (state.history.length > 0) show(state.history.pop());
}

function newGame(event) {
  if (event) event.preventDefault();
  state.rules = $('rules').value;
  state.history = [];
  show(startPosition(Number($('houses').value), Number($('seeds').value)));
}

function options(select, values, chosen) {
  select.replaceChildren(...values.map(([value, label]) => {
    const option = element('option', '', label);
    option.value = String(value);
    option.selected = String(value) === String(chosen);
    return option;
  }));
}

async function init() {
  const saved = new URLSearchParams(location.hash.slice(1));
  let offer = { rule_sets: [{ name: 'standard', rules: 'standard' }], max_houses: 6 };
  try {
    offer = await api('rules', {});
  } catch (err) {
    showError(err.message);
  }
  state.rules = saved.get('rules') || 'standard';
  const names = offer.rule_sets.map((set) => [set.name, set.name]);
  names.push(['standard direction=cw', 'standard, clockwise']);
  if (!names.some(([name]) => name === state.rules)) names.push([state.rules, state.rules]);
  options($('rules'), names, state.rules);
  const sizes = (n) => Array.from({ length: n }, (_, i) => [i + 1, String(i + 1)]);
  const pos = saved.get('pos');
  const bins = pos ? parsePosition(pos).bins : null;
  options($('houses'), sizes(offer.max_houses), bins ? (bins.length - 2) / 2 : 6);
  options($('seeds'), sizes(8), bins ? Math.max(1, bins[0]) : 4);
  $('setup').addEventListener('submit', newGame);
  $('undo').addEventListener('click', undo);
  $('load').addEventListener('submit', (event) => {
    event.preventDefault();
    state.rules = $('rules').value;
    state.history = [];
    show($('position-text').value);
  });
  if (pos) {
    show(pos);
  } else {
    newGame();
  }
}

init();
