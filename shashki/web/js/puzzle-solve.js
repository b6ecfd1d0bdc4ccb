// One attempt at a puzzle, as the server judges it (POST /api/puzzles/{id}/move): the page never knows the
// solution. The solver's moves so far, from the puzzle's start, are sent with each new one; the answer is
// "correct" (with the opponent's reply and the position after it), "wrong" (with the move that was right)
// or "solved". A wrong move or the last right move ends the attempt; the server rates only the first one.
//
// "View the solution" is the same judge asked again: from where the attempt went wrong, the move it named
// is sent, then for each position after a reply a legal move, and the right one when it was not. So the
// page shows the line the server holds without a second source of truth.

import { api, ensureSession, session } from "./api.js";

/** POST to the puzzles API; a server that wants a session for it gets an anonymous one, once. */
export async function post(path, body) {
  try {
    return await api("POST", path, body);
  } catch (e) {
    if ((e.status === 401 || e.status === 403) && !session.user) {
      await ensureSession();
      return api("POST", path, body);
    }
    throw e;
  }
}

export class Attempt {
  /** `puzzle`: the server's puzzle (P); the attempt starts at its position, the solver to move. */
  constructor(puzzle) {
    this.puzzle = puzzle;
    this.line = []; // the moves from the start: the solver's and the replies, in order
    this.position = puzzle.position; // the position the solver now moves in
    this.over = false; // a wrong move or the solution ended it
    this.result = null; // the last answer of the server
  }

  /** Send the solver's `move`: the server's answer, with `line` and `position` kept in step. */
  async play(move) {
    const line = [...this.line, move];
    const data = await post(`/api/puzzles/${this.puzzle.id}/move`, { line });
    this.result = data;
    if (data.result === "correct") {
      this.line = data.reply ? [...line, data.reply] : line;
      this.position = data.position;
    } else {
      this.over = true;
      if (data.result === "solved") {
        this.line = line;
        this.position = data.position;
      }
    }
    return data;
  }
}

/**
 * The whole solution line from the puzzle's start: `line` right so far (ending with a reply, or empty),
 * `expected` the right move at its end when known. Each step asks the server (at most two requests).
 */
export async function solutionFrom(puzzle, line, expected, position) {
  const id = puzzle.id;
  const solution = [...line];
  let next = expected;
  let legal = position.legal_moves;
  for (let guard = 0; guard < 200; guard++) {
    const move = next || (legal[0] && legal[0].move);
    if (!move) break;
    const data = await post(`/api/puzzles/${id}/move`, { line: [...solution, move] });
    if (data.result === "wrong") {
      if (!data.expected || data.expected === move) break;
      next = data.expected;
      continue;
    }
    solution.push(move);
    if (data.result === "solved") break;
    if (data.reply) solution.push(data.reply);
    legal = data.position.legal_moves;
    next = null;
  }
  return solution;
}

/** The positions along `moves` from the puzzle's start, from the analysis board's API (each with last_move). */
export async function positionsAlong(puzzle, moves) {
  const body = { variant: puzzle.variant, fen: puzzle.fen, moves, double_diagonal: !!puzzle.position.double_diagonal };
  return api("POST", "/api/analysis/position", body);
}
